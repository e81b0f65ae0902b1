import { hostname } from "node:os";
import { resolve } from "node:path";
import { createS3BlobStore } from "@gateway/blobstore";
import { createKafkaBus, type EventBus } from "@gateway/bus";
import { createRedisCache, type RedisConfigCache } from "@gateway/cache";
import type { Logger } from "@gateway/contracts";
import { type DbHandle, openDb } from "@gateway/db";
import { createBullmqQueue, type JobQueue } from "@gateway/jobs";
import type { KafkaEnv, PostgresEnv, RedisEnv, S3Env } from "./env.ts";

/** Env → adapter, one function per engine, shared by every app's deps.ts. */

export function openPostgres(env: PostgresEnv): Promise<DbHandle> {
  return openDb({ kind: "postgres", url: env.GATEWAY_DATABASE_URL, max: env.GATEWAY_DATABASE_POOL_SIZE });
}

/**
 * `reader`: a gateway (local copy, short timeout, longer for keys it has no copy of, starts
 * without Redis). `writer`: the control plane (waits for Redis at start, a longer timeout for
 * its writes).
 */
export function openRedisCache(
  env: RedisEnv,
  log: Logger,
  role: "reader" | "writer",
): Promise<RedisConfigCache> {
  return createRedisCache({
    url: env.GATEWAY_REDIS_URL,
    log,
    timeoutMs:
      role === "reader" ? env.GATEWAY_REDIS_TIMEOUT_MS : Math.max(env.GATEWAY_REDIS_TIMEOUT_MS, 2_000),
    missTimeoutMs: env.GATEWAY_REDIS_MISS_TIMEOUT_MS,
    waitForRedis: role === "writer",
    namespace: `${env.GATEWAY_REDIS_NAMESPACE}:config`,
  });
}

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
  });
}

export function openS3BlobStore(env: S3Env) {
  return createS3BlobStore({
    bucket: env.GATEWAY_S3_BUCKET,
    prefix: env.GATEWAY_S3_PREFIX,
    region: env.GATEWAY_S3_REGION,
    forcePathStyle: env.GATEWAY_S3_FORCE_PATH_STYLE,
    ...(env.GATEWAY_S3_ENDPOINT ? { endpoint: env.GATEWAY_S3_ENDPOINT } : {}),
    ...(env.GATEWAY_S3_ACCESS_KEY && env.GATEWAY_S3_SECRET_KEY
      ? {
          credentials: { accessKeyId: env.GATEWAY_S3_ACCESS_KEY, secretAccessKey: env.GATEWAY_S3_SECRET_KEY },
        }
      : {}),
  });
}

export function openBullmqQueue(env: RedisEnv, log: Logger): JobQueue {
  return createBullmqQueue({
    url: env.GATEWAY_REDIS_URL,
    log,
    prefix: `${env.GATEWAY_REDIS_NAMESPACE}:jobs`,
    onDeadLetter: (letter) => log.error("job failed for good", { name: letter.name, error: letter.error }),
  });
}
