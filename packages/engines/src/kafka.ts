import { hostname } from "node:os";
import { resolve } from "node:path";
import type { EventBus } from "@gateway/bus";
import {
  type ConsumerFetch,
  connectKafkaOnce,
  createKafkaBus,
  type KafkaBusOptions,
} from "@gateway/bus/kafka";
import type { Logger } from "@gateway/contracts";
import { EngineRefusedError, refusalOf } from "./engine-access.ts";
import type { KafkaEnv } from "./env.ts";

/** The app's own spool dir: `app` names the default, so the apps of one checkout never share one. */
export function spoolDirOf(env: KafkaEnv, app: string): string {
  return resolve(env.GATEWAY_SPOOL_DIR ?? `./data/spool/${app}`);
}

/**
 * The bus, once the brokers have been asked whether they take this app: a refusal (certificate,
 * TLS, login) throws `EngineRefusedError`; brokers that are away are not waited for (the bus
 * spools until they are back). `consumerFetch`: what its consumers wait for before a fetch returns
 * (the capture writer's settings); unset, whatever has arrived.
 */
export async function openKafkaBus(
  env: KafkaEnv,
  log: Logger,
  app: string,
  consumerFetch?: ConsumerFetch,
): Promise<EventBus> {
  const reach = {
    brokers: env.GATEWAY_KAFKA_BROKERS,
    ...kafkaSecurity(env),
    // the host name too: every container's process is pid 1
    clientId: env.GATEWAY_INSTANCE_ID ?? `${app}-${hostname()}-${process.pid}`,
  };
  await connectKafkaOnce(reach).catch((error: unknown) => {
    const refusal = refusalOf(error);
    if (!refusal)
      return log.warn("kafka unreachable at start; events are spooled until it answers", { error });
    const line = {
      untrusted: `GATEWAY_KAFKA_CA_FILE: the brokers' certificate is not trusted (${refusal.why})`,
      tls: `GATEWAY_KAFKA_CERT_FILE: the brokers refused the TLS handshake (${refusal.why})`,
      login: `GATEWAY_KAFKA_SASL_PASSWORD: the brokers refused the login of ${env.GATEWAY_KAFKA_SASL_USERNAME ?? "this client"} (${env.GATEWAY_KAFKA_SASL_MECHANISM ?? "SASL"})`,
    }[refusal.kind];
    throw new EngineRefusedError(line);
  });
  return createKafkaBus({
    ...reach,
    spoolDir: spoolDirOf(env, app),
    log,
    partitions: env.GATEWAY_KAFKA_PARTITIONS,
    maxMessageBytes: env.GATEWAY_KAFKA_MAX_MESSAGE_BYTES,
    namePrefix: env.GATEWAY_KAFKA_NAME_PREFIX,
    compression: env.GATEWAY_KAFKA_COMPRESSION,
    consumerFetch,
    ...(env.GATEWAY_KAFKA_REPLICATION_FACTOR
      ? { replicationFactor: env.GATEWAY_KAFKA_REPLICATION_FACTOR }
      : {}),
    ...(env.GATEWAY_KAFKA_MIN_INSYNC_REPLICAS
      ? { minInsyncReplicas: env.GATEWAY_KAFKA_MIN_INSYNC_REPLICAS }
      : {}),
  });
}

/** TLS and SASL from the settings (checked together at start by `checkEngineSettings`). */
export function kafkaSecurity(env: KafkaEnv): Pick<KafkaBusOptions, "tls" | "sasl"> {
  const { GATEWAY_KAFKA_CA_FILE: ca, GATEWAY_KAFKA_CERT_FILE: cert, GATEWAY_KAFKA_KEY_FILE: key } = env;
  const files = { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
  const tls = Object.keys(files).length > 0 ? files : env.GATEWAY_KAFKA_TLS ? (true as const) : undefined;
  const mechanism = env.GATEWAY_KAFKA_SASL_MECHANISM;
  const { GATEWAY_KAFKA_SASL_USERNAME: username, GATEWAY_KAFKA_SASL_PASSWORD: password } = env;
  const sasl =
    mechanism && mechanism !== "aws-msk-iam" && username && password
      ? { mechanism, username, password }
      : undefined;
  return { ...(tls ? { tls } : {}), ...(sasl ? { sasl } : {}) };
}
