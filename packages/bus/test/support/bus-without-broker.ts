import { silentLogger } from "@gateway/contracts";
import { createKafkaBus, type KafkaBusOptions } from "../../src/kafka.ts";

/**
 * A Kafka bus whose broker never answers (port 1), so what it is given goes to its spool. It
 * retries only once a minute unless told otherwise: a test drives the retries itself.
 */
export function busWithoutBroker(spoolDir: string, options: Partial<KafkaBusOptions> = {}) {
  return createKafkaBus({
    brokers: ["127.0.0.1:1"],
    clientId: "test",
    spoolDir,
    log: silentLogger,
    sendTimeoutMs: 300,
    retryIntervalMs: 60_000,
    ...options,
  });
}
