import type { z } from "zod";
import type { KafkaEnv, PostgresEnv, RedisEnv, S3Env } from "./env.ts";

type Settings = Partial<KafkaEnv & RedisEnv & PostgresEnv & S3Env>;

/**
 * The rules between an engine's settings, each broken one reported as one line naming the
 * setting: for the apps' env schemas, as `.superRefine(checkEngineSettings)`. Only the settings
 * an app has are looked at.
 */
export function checkEngineSettings(env: Settings, ctx: z.RefinementCtx): void {
  const refuse = (setting: keyof Settings, message: string) =>
    ctx.addIssue({ code: "custom", path: [setting], message });
  if ("GATEWAY_KAFKA_BROKERS" in env) checkKafka(env, refuse);
  if ("GATEWAY_REDIS_NAMESPACE" in env) checkRedis(env, refuse);
  if (env.GATEWAY_DATABASE_CA_FILE && env.GATEWAY_DATABASE_URL && URL.canParse(env.GATEWAY_DATABASE_URL)) {
    const mode = new URL(env.GATEWAY_DATABASE_URL).searchParams.get("sslmode");
    if (mode && mode !== "verify-full")
      refuse("GATEWAY_DATABASE_CA_FILE", `means sslmode=verify-full; the URL asks for sslmode=${mode}`);
  }
  if (env.GATEWAY_S3_CA_FILE && !env.GATEWAY_S3_ENDPOINT?.startsWith("https://"))
    refuse("GATEWAY_S3_CA_FILE", "needs an https:// GATEWAY_S3_ENDPOINT (AWS S3 itself has a public CA)");
}

type Refuse = (setting: keyof Settings, message: string) => void;

function checkKafka(env: Settings, refuse: Refuse) {
  const files = env.GATEWAY_KAFKA_CA_FILE ?? env.GATEWAY_KAFKA_CERT_FILE ?? env.GATEWAY_KAFKA_KEY_FILE;
  if (env.GATEWAY_KAFKA_TLS === false && files)
    refuse("GATEWAY_KAFKA_TLS", "is false, but a GATEWAY_KAFKA_*_FILE for TLS is set");
  if (!env.GATEWAY_KAFKA_CERT_FILE !== !env.GATEWAY_KAFKA_KEY_FILE)
    refuse(
      "GATEWAY_KAFKA_CERT_FILE",
      "mutual TLS takes both GATEWAY_KAFKA_CERT_FILE and GATEWAY_KAFKA_KEY_FILE",
    );
  const mechanism = env.GATEWAY_KAFKA_SASL_MECHANISM;
  if (mechanism === "aws-msk-iam")
    refuse(
      "GATEWAY_KAFKA_SASL_MECHANISM",
      "AWS_MSK_IAM is not supported by kafkajs (its `aws` mechanism is not the one MSK speaks); on MSK use SCRAM-SHA-512 or mutual TLS",
    );
  else if (mechanism && !(env.GATEWAY_KAFKA_SASL_USERNAME && env.GATEWAY_KAFKA_SASL_PASSWORD))
    refuse(
      "GATEWAY_KAFKA_SASL_MECHANISM",
      "needs GATEWAY_KAFKA_SASL_USERNAME and GATEWAY_KAFKA_SASL_PASSWORD",
    );
  else if (!mechanism && (env.GATEWAY_KAFKA_SASL_USERNAME || env.GATEWAY_KAFKA_SASL_PASSWORD))
    refuse("GATEWAY_KAFKA_SASL_MECHANISM", "is unset, but a SASL user or password is given");
  const replication = env.GATEWAY_KAFKA_REPLICATION_FACTOR;
  if (replication && (env.GATEWAY_KAFKA_MIN_INSYNC_REPLICAS ?? 0) > replication)
    refuse(
      "GATEWAY_KAFKA_MIN_INSYNC_REPLICAS",
      "is larger than GATEWAY_KAFKA_REPLICATION_FACTOR: no write could succeed",
    );
}

function checkRedis(env: Settings, refuse: Refuse) {
  if (env.GATEWAY_REDIS_SENTINELS) {
    if (env.GATEWAY_REDIS_URL)
      refuse(
        "GATEWAY_REDIS_URL",
        "not with GATEWAY_REDIS_SENTINELS (they name the primary); give GATEWAY_REDIS_USERNAME, GATEWAY_REDIS_PASSWORD and GATEWAY_REDIS_TLS instead",
      );
    if (!env.GATEWAY_REDIS_SENTINEL_MASTER)
      refuse("GATEWAY_REDIS_SENTINEL_MASTER", "is required with GATEWAY_REDIS_SENTINELS");
  } else if (!env.GATEWAY_REDIS_URL) refuse("GATEWAY_REDIS_URL", "is required (or GATEWAY_REDIS_SENTINELS)");
  else if (env.GATEWAY_REDIS_TLS !== undefined)
    refuse("GATEWAY_REDIS_TLS", "is for Sentinel; with GATEWAY_REDIS_URL, rediss:// means TLS");
  const tls = env.GATEWAY_REDIS_URL?.startsWith("rediss:") || env.GATEWAY_REDIS_TLS === true;
  if (env.GATEWAY_REDIS_CA_FILE && !tls)
    refuse("GATEWAY_REDIS_CA_FILE", "needs TLS: a rediss:// URL, or GATEWAY_REDIS_TLS=true with Sentinel");
}
