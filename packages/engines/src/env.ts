import { secret } from "@gateway/runtime";
import { z } from "zod";
import { caFile, certFile, keyFile } from "./tls-files.ts";

/**
 * The settings of the split deployment, one fragment per engine, for the apps' env schemas to
 * compose with `@gateway/runtime`'s `listenEnv`. Defaults match infra/distributed.env where a
 * default makes sense; URLs never have one.
 */
const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
const hostPorts = z
  .string()
  .min(1)
  .transform((v) => v.split(",").map((b) => b.trim()))
  .pipe(z.array(z.string().regex(/^[^\s:]+:\d+$/, "expected host:port")).min(1));

export const postgresEnv = {
  /**
   * `?sslmode=verify-full` checks the server against the system's CAs; with a private CA, set
   * `GATEWAY_DATABASE_CA_FILE` instead (postgres.js does not read `sslrootcert` from the URL).
   */
  GATEWAY_DATABASE_URL: secret(
    // a URL that does not parse is z.url()'s to report; this rule looks only at one that does
    z
      .url()
      .refine(
        (url) =>
          !URL.canParse(url) || ["", "system"].includes(new URL(url).searchParams.get("sslrootcert") ?? ""),
        {
          message: "sslrootcert=<file> is not read from the URL; give the file as GATEWAY_DATABASE_CA_FILE",
        },
      ),
  ),
  GATEWAY_DATABASE_POOL_SIZE: z.coerce.number().int().positive().default(10),
  /** TLS with verify-full (the chain to these CAs, and the URL's host name) when set. */
  GATEWAY_DATABASE_CA_FILE: caFile.optional(),
};

export const redisEnv = {
  /** `redis://` or `rediss://` (TLS), with `user:password@` for an ACL user; unset with Sentinel. */
  GATEWAY_REDIS_URL: secret(
    z.url({ protocol: /^rediss?$/, error: "expected a redis:// or rediss:// URL" }).optional(),
  ),
  /** The ACL user and its password, when not in the URL (with Sentinel, here only). */
  GATEWAY_REDIS_USERNAME: z.string().min(1).optional(),
  GATEWAY_REDIS_PASSWORD: secret(z.string().min(1).optional()),
  /** TLS to Redis with Sentinel (no URL to say `rediss://`); with a URL, its scheme says. */
  GATEWAY_REDIS_TLS: bool.optional(),
  /** The CAs Redis's certificate must chain to, instead of the system's. */
  GATEWAY_REDIS_CA_FILE: caFile.optional(),
  /** Comma-separated host:port list of sentinels: the primary is asked of them, and followed on failover. */
  GATEWAY_REDIS_SENTINELS: hostPorts.optional(),
  /** The name the sentinels monitor the primary by. */
  GATEWAY_REDIS_SENTINEL_MASTER: z.string().min(1).optional(),
  GATEWAY_REDIS_SENTINEL_USERNAME: z.string().min(1).optional(),
  GATEWAY_REDIS_SENTINEL_PASSWORD: secret(z.string().min(1).optional()),
  /** TLS to the sentinels themselves; unset: as to Redis. */
  GATEWAY_REDIS_SENTINEL_TLS: bool.optional(),
  /** Longest the gateway waits on Redis for a key it holds a copy of; past it, the copy answers. */
  GATEWAY_REDIS_TIMEOUT_MS: z.coerce.number().int().positive().default(50),
  /** Longest the gateway waits on Redis for a key it holds no copy of; past it, the request gets 503. */
  GATEWAY_REDIS_MISS_TIMEOUT_MS: z.coerce.number().int().positive().default(1_000),
  /** Prefix of the config keys, the invalidation channel and BullMQ's keys, for deployments that share a Redis. */
  GATEWAY_REDIS_NAMESPACE: z.string().min(1).default("gw"),
};

export const kafkaEnv = {
  /** Comma-separated host:port list. */
  GATEWAY_KAFKA_BROKERS: hostPorts,
  /** TLS with the system's CAs; implied by any of the three files below. */
  GATEWAY_KAFKA_TLS: bool.optional(),
  GATEWAY_KAFKA_CA_FILE: caFile.optional(),
  /** This client's certificate and key, for mutual TLS (both or neither). */
  GATEWAY_KAFKA_CERT_FILE: certFile.optional(),
  GATEWAY_KAFKA_KEY_FILE: keyFile.optional(),
  /** `PLAIN`, `SCRAM-SHA-256` or `SCRAM-SHA-512`, with the user and password below. */
  GATEWAY_KAFKA_SASL_MECHANISM: z
    .string()
    .transform((v) => v.toLowerCase().replaceAll("_", "-"))
    .pipe(z.enum(["plain", "scram-sha-256", "scram-sha-512", "aws-msk-iam"]))
    .optional(),
  GATEWAY_KAFKA_SASL_USERNAME: z.string().min(1).optional(),
  GATEWAY_KAFKA_SASL_PASSWORD: secret(z.string().min(1).optional()),
  /**
   * Of the topics the apps create (a topic that exists keeps its own). Unset: 3, or the number
   * of brokers when fewer; `min.insync.replicas` one less, at most 2 (and at least 1).
   */
  GATEWAY_KAFKA_REPLICATION_FACTOR: z.coerce.number().int().positive().optional(),
  GATEWAY_KAFKA_MIN_INSYNC_REPLICAS: z.coerce.number().int().positive().optional(),
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

export const s3Env = {
  GATEWAY_S3_BUCKET: z.string().min(3),
  /** Prepended to every object key, e.g. `gateway/`. */
  GATEWAY_S3_PREFIX: z.string().default(""),
  GATEWAY_S3_REGION: z.string().min(1).default("us-east-1"),
  /** Unset for AWS S3; the server's URL for MinIO, R2 or another S3-compatible store. */
  GATEWAY_S3_ENDPOINT: z.url().optional(),
  GATEWAY_S3_FORCE_PATH_STYLE: bool.default(false),
  /** Both unset: the AWS SDK's default credential chain (env, profile, instance role). */
  GATEWAY_S3_ACCESS_KEY: secret(z.string().min(1).optional()),
  GATEWAY_S3_SECRET_KEY: secret(z.string().min(1).optional()),
  /** The CAs an `https://` endpoint's certificate must chain to (a private CA), instead of the system's. */
  GATEWAY_S3_CA_FILE: caFile.optional(),
};

type Shape<T extends Record<string, z.ZodType>> = z.infer<z.ZodObject<T>>;
export type PostgresEnv = Shape<typeof postgresEnv>;
export type RedisEnv = Shape<typeof redisEnv>;
export type KafkaEnv = Shape<typeof kafkaEnv>;
export type S3Env = Shape<typeof s3Env>;
