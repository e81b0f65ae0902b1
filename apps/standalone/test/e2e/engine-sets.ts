import { join } from "node:path";
import { freshPostgresDatabase } from "@gateway/db/testing";
import { freePort, localEngines } from "@gateway/testkit";
import postgres from "postgres";
import { infra } from "./processes.ts";

/**
 * The engines a split deployment runs on: the settings every app gets for them (`GATEWAY_DATABASE_*`,
 * `GATEWAY_KAFKA_*`, `GATEWAY_REDIS_*`, `GATEWAY_S3_*`), a client on its database for the tests
 * that read rows, and how to stop what was started for it.
 */
export interface EngineSet {
  env: Record<string, string>;
  sql: postgres.Sql;
  stop(): Promise<void>;
}

/** The default engines: Kafka and Redis of the deployment's own, the shared PostgreSQL and S3. */
export interface PlainEngines extends EngineSet {
  kafkaEnv: Record<string, string>;
  redisEnv: Record<string, string>;
}

/**
 * Kafka and Redis of the deployment's own, started by the same infra scripts on free ports (so
 * the fault tests can stop them without disturbing other suites), and the shared stores.
 */
export async function plainEngines(work: string, run: string): Promise<PlainEngines> {
  const redisEnv = { GATEWAY_REDIS_PORT: String(await freePort()), REDIS_DIR: join(work, "redis") };
  const [stores, kafka] = await Promise.all([
    sharedStores(run),
    ownKafka(work),
    infra("redis", "start", redisEnv),
  ]);
  return {
    kafkaEnv: kafka.kafkaEnv,
    redisEnv,
    sql: stores.sql,
    env: {
      ...stores.env,
      ...kafka.env,
      GATEWAY_REDIS_URL: await infra("redis", "url", redisEnv),
      GATEWAY_REDIS_NAMESPACE: `e2e-${run}`,
    },
    async stop() {
      await Promise.all([kafka.stop(), infra("redis", "stop", redisEnv)]);
      await stores.stop();
    },
  };
}

/** A plain Kafka of the deployment's own (infra/kafka.sh on free ports, its data under `work`). */
export async function ownKafka(work: string) {
  const kafkaEnv = {
    GATEWAY_KAFKA_PORT: String(await freePort()),
    GATEWAY_KAFKA_CONTROLLER_PORT: String(await freePort()),
    KAFKA_DIR: join(work, "kafka"),
  };
  await infra("kafka", "start", kafkaEnv);
  return {
    kafkaEnv,
    env: { GATEWAY_KAFKA_BROKERS: await infra("kafka", "url", kafkaEnv), GATEWAY_KAFKA_PARTITIONS: "3" },
    stop: () => infra("kafka", "stop", kafkaEnv),
  };
}

/** A fresh database on the shared PostgreSQL and a fresh key prefix on the shared S3 that .ci/run started. */
export async function sharedStores(run: string): Promise<EngineSet> {
  const pg = await freshPostgresDatabase(process.env.GATEWAY_TEST_POSTGRES_URL!);
  const sql = postgres(pg.config.url, { max: 2, onnotice: () => {} });
  return {
    sql,
    env: {
      GATEWAY_DATABASE_URL: pg.config.url,
      GATEWAY_DATABASE_POOL_SIZE: "5",
      GATEWAY_S3_ENDPOINT: localEngines().s3Url,
      GATEWAY_S3_BUCKET: process.env.GATEWAY_S3_BUCKET ?? "gateway-captures",
      GATEWAY_S3_PREFIX: `e2e-${run}/`,
      GATEWAY_S3_REGION: process.env.GATEWAY_S3_REGION ?? "us-east-1",
      GATEWAY_S3_FORCE_PATH_STYLE: "true",
      GATEWAY_S3_ACCESS_KEY: process.env.GATEWAY_S3_ACCESS_KEY ?? "gateway-dev",
      GATEWAY_S3_SECRET_KEY: process.env.GATEWAY_S3_SECRET_KEY ?? "gateway-dev-secret-key",
    },
    async stop() {
      await sql.end();
      await pg.drop();
    },
  };
}
