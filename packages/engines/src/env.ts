import { z } from "zod";

/**
 * The settings of the split deployment, one fragment per engine, for the apps' env schemas to
 * compose with `@gateway/runtime`'s `listenEnv`. Defaults match infra/distributed.env where a
 * default makes sense; URLs never have one.
 */
export const postgresEnv = {
  GATEWAY_DATABASE_URL: z.url(),
  GATEWAY_DATABASE_POOL_SIZE: z.coerce.number().int().positive().default(10),
};

export const redisEnv = {
  GATEWAY_REDIS_URL: z.url(),
  /** Longest the gateway waits on Redis for a key it holds a copy of; past it, the copy answers. */
  GATEWAY_REDIS_TIMEOUT_MS: z.coerce.number().int().positive().default(50),
  /** Longest the gateway waits on Redis for a key it holds no copy of; past it, the request gets 503. */
  GATEWAY_REDIS_MISS_TIMEOUT_MS: z.coerce.number().int().positive().default(1_000),
  /** Prefix of the config keys, the invalidation channel and BullMQ's keys, for deployments that share a Redis. */
  GATEWAY_REDIS_NAMESPACE: z.string().min(1).default("gw"),
};

export const kafkaEnv = {
  /** Comma-separated host:port list. */
  GATEWAY_KAFKA_BROKERS: z
    .string()
    .min(1)
    .transform((v) => v.split(",").map((b) => b.trim()))
    .pipe(z.array(z.string().regex(/^[^\s:]+:\d+$/, "expected host:port")).min(1)),
  GATEWAY_KAFKA_PARTITIONS: z.coerce.number().int().positive().default(6),
  GATEWAY_KAFKA_MAX_MESSAGE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(128 * 1024 * 1024),
  /** Prepended to topic and consumer-group names, for deployments that share a cluster. */
  GATEWAY_KAFKA_NAME_PREFIX: z.string().default(""),
  /**
   * How produced batches are compressed; unset: zstd where Node has it (>= 22.15), else gzip.
   * Consumers read both; gzip is for consumers on an older Node, or other clients, that lack zstd.
   */
  GATEWAY_KAFKA_COMPRESSION: z.enum(["zstd", "gzip"]).optional(),
  /**
   * The spool (events wait here while the broker is away) and the journal (events not yet handed
   * on, for the next start after a kill): one directory per process, on durable disk, kept across
   * restarts. Unset: `./data/spool/<app>`.
   */
  GATEWAY_SPOOL_DIR: z.string().min(1).optional(),
  /** Names this process to the broker; defaults to `<app>-<host name>-<pid>`. */
  GATEWAY_INSTANCE_ID: z.string().min(1).optional(),
};

const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");

export const s3Env = {
  GATEWAY_S3_BUCKET: z.string().min(3),
  /** Prepended to every object key, e.g. `gateway/`. */
  GATEWAY_S3_PREFIX: z.string().default(""),
  GATEWAY_S3_REGION: z.string().min(1).default("us-east-1"),
  /** Unset for AWS S3; the server's URL for MinIO, R2 or another S3-compatible store. */
  GATEWAY_S3_ENDPOINT: z.url().optional(),
  GATEWAY_S3_FORCE_PATH_STYLE: bool.default(false),
  /** Both unset: the AWS SDK's default credential chain (env, profile, instance role). */
  GATEWAY_S3_ACCESS_KEY: z.string().min(1).optional(),
  GATEWAY_S3_SECRET_KEY: z.string().min(1).optional(),
};

type Shape<T extends Record<string, z.ZodType>> = z.infer<z.ZodObject<T>>;
export type PostgresEnv = Shape<typeof postgresEnv>;
export type RedisEnv = Shape<typeof redisEnv>;
export type KafkaEnv = Shape<typeof kafkaEnv>;
export type S3Env = Shape<typeof s3Env>;
