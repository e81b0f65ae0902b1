import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@gateway/contracts";
import { parseEnvWith } from "@gateway/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { EngineRefusedError } from "../src/engine-access.ts";
import { checkEngineSettings, kafkaEnv, postgresEnv, redisEnv, s3Env } from "../src/index.ts";
import { openKafkaBus } from "../src/kafka.ts";
import { openPostgres } from "../src/postgres.ts";
import { openRedisCache } from "../src/redis-cache.ts";
import { openS3BlobStore } from "../src/s3.ts";

/**
 * The adapters against secured engines: Kafka over SASL_SSL (SCRAM) with 3 brokers, Redis over
 * TLS with an ACL user, directly and through Sentinel, PostgreSQL with verify-full, S3 over HTTPS
 * with a private CA. Run with GATEWAY_TEST_SECURE_ENGINES=1 and the SECURE_* settings that
 * `infra/secure/engines.sh env` prints (the engines that `infra/secure/engines.sh start` runs).
 */
const secure = process.env.GATEWAY_TEST_SECURE_ENGINES === "1";
if (!secure)
  console.log("secure-engines.test.ts skipped: set GATEWAY_TEST_SECURE_ENGINES=1 and the SECURE_* settings");
const need = (name: string) => process.env[name] ?? "";
const ca = (name = "ca.crt") => join(need("SECURE_CA_DIR"), name);
const schema = z
  .object({ ...kafkaEnv, ...redisEnv, ...postgresEnv, ...s3Env })
  .superRefine(checkEngineSettings);
const run = randomBytes(4).toString("hex");
/** Settings of every engine, over TLS with the test CA; each test changes those of its engine. */
const settings = (env: Record<string, string | undefined>) =>
  parseEnvWith(schema, {
    GATEWAY_KAFKA_BROKERS: need("SECURE_KAFKA_BROKERS"),
    GATEWAY_KAFKA_CA_FILE: ca(),
    GATEWAY_KAFKA_SASL_MECHANISM: "SCRAM-SHA-512",
    GATEWAY_KAFKA_SASL_USERNAME: need("SECURE_KAFKA_USER"),
    GATEWAY_KAFKA_SASL_PASSWORD: need("SECURE_KAFKA_PASSWORD"),
    // the test user may use topics and groups under this prefix (infra/secure/kafka.sh's ACLs)
    GATEWAY_KAFKA_NAME_PREFIX: `e2e-h8-${run}.`,
    GATEWAY_SPOOL_DIR: mkdtempSync(join(tmpdir(), "secure-bus-")),
    GATEWAY_REDIS_URL: need("SECURE_REDIS_URL"),
    GATEWAY_REDIS_CA_FILE: ca(),
    GATEWAY_REDIS_NAMESPACE: `gw:h8-${run}`,
    GATEWAY_DATABASE_URL: need("SECURE_PG_URL").replace(/&sslrootcert=[^&]*/, ""),
    GATEWAY_DATABASE_CA_FILE: ca(),
    GATEWAY_S3_ENDPOINT: need("SECURE_S3_URL"),
    GATEWAY_S3_CA_FILE: ca(),
    GATEWAY_S3_BUCKET: process.env.GATEWAY_S3_BUCKET ?? "gateway-captures",
    GATEWAY_S3_ACCESS_KEY: process.env.GATEWAY_S3_ACCESS_KEY ?? "gateway-dev",
    GATEWAY_S3_SECRET_KEY: process.env.GATEWAY_S3_SECRET_KEY ?? "gateway-dev-secret-key",
    GATEWAY_S3_FORCE_PATH_STYLE: "true",
    ...env,
  });
/** Redis through the sentinels instead of its URL. */
const sentinel = {
  GATEWAY_REDIS_URL: undefined,
  GATEWAY_REDIS_SENTINELS: need("SECURE_REDIS_SENTINELS"),
  GATEWAY_REDIS_SENTINEL_MASTER: need("SECURE_REDIS_MASTER_NAME"),
  GATEWAY_REDIS_SENTINEL_PASSWORD: need("SECURE_REDIS_SENTINEL_PASSWORD"),
  GATEWAY_REDIS_USERNAME: need("SECURE_REDIS_USER"),
  GATEWAY_REDIS_PASSWORD: need("SECURE_REDIS_PASSWORD"),
  GATEWAY_REDIS_TLS: "true",
};
const warnings: string[] = [];
const log: Logger = { debug() {}, info() {}, warn: (m) => warnings.push(m), error: (m) => warnings.push(m) };
const closing: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
});

describe.skipIf(!secure)("the adapters on secured engines", () => {
  it("Kafka over SASL_SSL (SCRAM-SHA-512): an event published is consumed", async () => {
    const bus = await openKafkaBus(settings({}), log, "e2e");
    closing.push(() => bus.close());
    const got: unknown[] = [];
    await bus.subscribe({ topic: "calls", group: "g", handle: async (batch) => void got.push(...batch) });
    bus.publish("calls", "k", { hello: run });
    await expect.poll(() => got, { timeout: 20_000 }).toEqual([{ hello: run }]);
    // what the bus logged says why a send failed (one CI run had one, the event still consumed)
    expect(bus.stats().publishFailures, warnings.join("\n")).toBe(0);
  });

  it.each([
    [
      { GATEWAY_KAFKA_SASL_PASSWORD: "wrong" },
      "GATEWAY_KAFKA_SASL_PASSWORD: the brokers refused the login of gateway (scram-sha-512)",
    ],
    [
      { GATEWAY_KAFKA_CA_FILE: ca("wrong-ca.crt") },
      "GATEWAY_KAFKA_CA_FILE: the brokers' certificate is not trusted (",
    ],
  ])("Kafka refusing the app stops its start with one line: %j", async (env, line) => {
    const refused = openKafkaBus(settings(env), log, "e2e");
    await expect(refused).rejects.toThrow(EngineRefusedError);
    await expect(refused).rejects.toThrow(line);
  });

  it.each([
    [
      { GATEWAY_REDIS_PASSWORD: "wrong", GATEWAY_REDIS_USERNAME: "gateway" },
      "GATEWAY_REDIS_PASSWORD: Redis refused the login of gateway (WRONGPASS)",
    ],
    [
      { GATEWAY_REDIS_CA_FILE: ca("wrong-ca.crt") },
      "GATEWAY_REDIS_CA_FILE: Redis's certificate is not trusted (SELF_SIGNED_CERT_IN_CHAIN)",
    ],
    // through Sentinel, the sentinels are asked first: ioredis itself only says "all unreachable"
    [
      { ...sentinel, GATEWAY_REDIS_CA_FILE: ca("wrong-ca.crt") },
      "GATEWAY_REDIS_CA_FILE: the sentinels' certificate is not trusted (SELF_SIGNED_CERT_IN_CHAIN)",
    ],
    [
      { ...sentinel, GATEWAY_REDIS_SENTINEL_PASSWORD: "wrong" },
      "GATEWAY_REDIS_SENTINEL_PASSWORD: the sentinels refused the login (WRONGPASS)",
    ],
    [
      { ...sentinel, GATEWAY_REDIS_PASSWORD: "wrong" },
      "GATEWAY_REDIS_PASSWORD: Redis refused the login of gateway (WRONGPASS)",
    ],
  ])("Redis refusing the app stops its start with one line: %j", async (env, line) => {
    await expect(openRedisCache(settings(env), log, "reader")).rejects.toThrow(line);
  });

  it.each([
    ["directly", {}],
    ["through Sentinel", sentinel],
  ])("Redis over TLS as an ACL user, %s: a write read back by another process's cache", async (_, env) => {
    const writer = await openRedisCache(settings(env), log, "writer");
    closing.push(() => writer.close());
    // a reader trusts Redis only once a writer has marked it complete
    await writer.keepSynced(async () => {});
    const reader = await openRedisCache(settings(env), log, "reader");
    closing.push(() => reader.close());
    await writer.set("key:1", { value: run });
    await expect.poll(() => reader.get("key:1"), { timeout: 5_000 }).toEqual({ value: run });
  });

  it("PostgreSQL with verify-full against the CA file", async () => {
    const db = await openPostgres(settings({}));
    closing.push(() => db.close());
    await expect(db.exclusive(async () => "in")).resolves.toBe("in");
  });

  it.each([
    [
      { GATEWAY_DATABASE_CA_FILE: ca("wrong-ca.crt") },
      "GATEWAY_DATABASE_CA_FILE: PostgreSQL's certificate is not trusted (",
    ],
    [
      {
        GATEWAY_DATABASE_URL: need("SECURE_PG_URL")
          .replace(/:[^:@/]+@/, ":wrong@")
          .replace(/&sslrootcert=[^&]*/, ""),
      },
      "GATEWAY_DATABASE_URL: PostgreSQL refused the login (SQLSTATE 28P01)",
    ],
  ])("PostgreSQL refusing the app stops its start with one line: %j", async (env, line) => {
    await expect(openPostgres(settings(env))).rejects.toThrow(line);
  });

  it("S3 over HTTPS with the private CA", async () => {
    const store = await openS3BlobStore(settings({}), log);
    closing.push(async () => store.close());
    const key = `h8-secure/${run}.txt`;
    expect(await store.putIfAbsent(key, Buffer.from(run))).toBe(true);
    expect((await store.get(key))?.toString()).toBe(run);
    // a large object goes with `Expect: 100-continue`, which the SDK once sent without the CA
    const large = Buffer.alloc(8 * 1024 * 1024, 7);
    expect(await store.putIfAbsent(`h8-secure/${run}-large.bin`, large)).toBe(true);
    expect((await store.get(`h8-secure/${run}-large.bin`))?.equals(large)).toBe(true);
  });

  it.each([
    [
      { GATEWAY_S3_CA_FILE: ca("wrong-ca.crt") },
      "GATEWAY_S3_CA_FILE: the object store's certificate is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)",
    ],
    [
      { GATEWAY_S3_SECRET_KEY: "wrong-secret-key" },
      "GATEWAY_S3_SECRET_KEY: the object store refused the credentials",
    ],
    [
      { GATEWAY_S3_BUCKET: `no-bucket-${run}` },
      `GATEWAY_S3_BUCKET: the object store has no bucket no-bucket-${run}`,
    ],
  ])("S3 refusing the app stops its start with one line: %j", async (env, line) => {
    const refused = openS3BlobStore(settings(env), log);
    await expect(refused).rejects.toThrow(EngineRefusedError);
    await expect(refused).rejects.toThrow(line);
  });
});
