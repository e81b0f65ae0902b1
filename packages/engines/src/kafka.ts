import { hostname } from "node:os";
import { resolve } from "node:path";
import { createKafkaBus, type EventBus } from "@gateway/bus";
import type { Logger } from "@gateway/contracts";
import type { KafkaEnv } from "./env.ts";

/** The app's own spool dir: `app` names the default, so the apps of one checkout never share one. */
export function spoolDirOf(env: KafkaEnv, app: string): string {
  return resolve(env.GATEWAY_SPOOL_DIR ?? `./data/spool/${app}`);
}

export function openKafkaBus(env: KafkaEnv, log: Logger, app: string): Promise<EventBus> {
  return createKafkaBus({
    brokers: env.GATEWAY_KAFKA_BROKERS,
    // the host name too: every container's process is pid 1
    clientId: env.GATEWAY_INSTANCE_ID ?? `${app}-${hostname()}-${process.pid}`,
    spoolDir: spoolDirOf(env, app),
    log,
    partitions: env.GATEWAY_KAFKA_PARTITIONS,
    maxMessageBytes: env.GATEWAY_KAFKA_MAX_MESSAGE_BYTES,
    namePrefix: env.GATEWAY_KAFKA_NAME_PREFIX,
    compression: env.GATEWAY_KAFKA_COMPRESSION,
  });
}
