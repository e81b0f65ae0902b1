import { Kafka, logLevel } from "kafkajs";
import type { KafkaBusOptions } from "./kafka-bus.ts";

/**
 * Connects to the cluster once, as the bus would (TLS, SASL), and leaves: at start, so that a
 * refused login or certificate is told at once rather than as a spool that never drains.
 * Rejects with kafkajs's error, whose `code` or `cause` says why.
 */
export async function connectKafkaOnce(
  options: Pick<KafkaBusOptions, "brokers" | "clientId" | "tls" | "sasl">,
): Promise<void> {
  const admin = new Kafka({
    clientId: options.clientId,
    brokers: options.brokers,
    ...(options.tls ? { ssl: options.tls } : {}),
    ...(options.sasl ? { sasl: options.sasl } : {}),
    connectionTimeout: 2_000,
    retry: { retries: 0 },
    logLevel: logLevel.NOTHING,
  }).admin();
  try {
    await admin.connect();
    await admin.describeCluster();
  } finally {
    await admin.disconnect().catch(() => {});
  }
}
