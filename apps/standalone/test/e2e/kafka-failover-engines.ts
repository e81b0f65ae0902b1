import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { freePort } from "@gateway/testkit";
import { type EngineSet, sharedStores } from "./engine-sets.ts";
import { infra } from "./processes.ts";

/**
 * The engines of the Kafka failover test: its own 3-node KRaft cluster over SASL_SSL (SCRAM,
 * ACLs on, a throwaway CA in the test's work dir) on the 631xx ports that no other suite uses,
 * its own Redis, a fresh database on the shared PostgreSQL and a fresh key prefix on the shared S3.
 */
export interface FailoverEngines extends EngineSet {
  /** The env `infra/secure/kafka.sh` runs with, for `kill N`, `start-node N` and `leaders TOPIC`. */
  kafkaEnv: Record<string, string>;
}

export async function failoverEngines(work: string, run: string): Promise<FailoverEngines> {
  const secureDir = join(work, "secure");
  const kafkaEnv = {
    SECURE_DIR: secureDir,
    // its own throwaway CA, also where .ci/run exported the default set's (SECURE_CA_DIR)
    SECURE_CA_DIR: join(secureDir, "ca"),
    SECURE_KAFKA_SASL_PORT_BASE: "63100",
    SECURE_KAFKA_MTLS_PORT_BASE: "63110",
    SECURE_KAFKA_CONTROLLER_PORT_BASE: "63120",
    SECURE_KAFKA_USER: "gateway",
    // the cluster is formatted with it, so each run's is its own
    SECURE_KAFKA_PASSWORD: `failover-${randomBytes(8).toString("hex")}`,
  };
  const redisEnv = { GATEWAY_REDIS_PORT: String(await freePort()), REDIS_DIR: join(work, "redis") };
  const stores = await sharedStores(run);
  const stop = async () => {
    await Promise.all([infra("secure/kafka", "stop", kafkaEnv), infra("redis", "stop", redisEnv)]);
    await stores.stop();
  };
  try {
    await Promise.all([infra("secure/kafka", "start", kafkaEnv), infra("redis", "start", redisEnv)]);
    return {
      kafkaEnv,
      sql: stores.sql,
      stop,
      env: {
        ...stores.env,
        GATEWAY_REDIS_URL: await infra("redis", "url", redisEnv),
        GATEWAY_REDIS_NAMESPACE: `e2e-${run}`,
        GATEWAY_KAFKA_BROKERS: await infra("secure/kafka", "url", kafkaEnv),
        GATEWAY_KAFKA_CA_FILE: join(kafkaEnv.SECURE_CA_DIR, "ca.crt"),
        GATEWAY_KAFKA_SASL_MECHANISM: "SCRAM-SHA-512",
        GATEWAY_KAFKA_SASL_USERNAME: kafkaEnv.SECURE_KAFKA_USER,
        GATEWAY_KAFKA_SASL_PASSWORD: kafkaEnv.SECURE_KAFKA_PASSWORD,
        GATEWAY_KAFKA_REPLICATION_FACTOR: "3",
        GATEWAY_KAFKA_MIN_INSYNC_REPLICAS: "2",
        GATEWAY_KAFKA_PARTITIONS: "6",
      },
    };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}
