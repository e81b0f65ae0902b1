import { readFileSync } from "node:fs";
import { parseEnvWith } from "@gateway/runtime";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { checkEngineSettings, kafkaEnv, postgresEnv, redisEnv, s3Env } from "../src/index.ts";
import { kafkaSecurity } from "../src/kafka.ts";
import { redisOptions } from "../src/redis-options.ts";
import { testPems } from "./support/test-pems.ts";

// every engine's settings at once, checked together as the apps' schemas do
const schema = z
  .object({ ...kafkaEnv, ...redisEnv, ...postgresEnv, ...s3Env })
  .superRefine(checkEngineSettings);
const base = {
  GATEWAY_KAFKA_BROKERS: "127.0.0.1:9092",
  GATEWAY_REDIS_URL: "redis://127.0.0.1:6379",
  GATEWAY_DATABASE_URL: "postgres://gw:pw@db.internal:5432/gw",
  GATEWAY_S3_BUCKET: "captures",
};
const parse = (env: Record<string, string>) => parseEnvWith(schema, { ...base, ...env });
/** The one line the start stops with (after the "Invalid configuration:" heading). */
function problems(env: Record<string, string>): string[] {
  try {
    parse(env);
  } catch (error) {
    return (error as Error).message
      .split("\n")
      .slice(1)
      .map((line) => line.trim());
  }
  throw new Error("parsed");
}

let pems: ReturnType<typeof testPems>;
beforeAll(() => {
  pems = testPems();
});

describe("secrets given as files (<NAME>_FILE)", () => {
  it("reads the secret from the file, without its trailing newline", () => {
    const password = pems.write("kafka-password", "s3cret-kafka\n");
    const env = parse({
      GATEWAY_KAFKA_SASL_MECHANISM: "SCRAM-SHA-512",
      GATEWAY_KAFKA_SASL_USERNAME: "gateway",
      GATEWAY_KAFKA_SASL_PASSWORD_FILE: password,
    });
    expect(kafkaSecurity(env).sasl).toEqual({
      mechanism: "scram-sha-512",
      username: "gateway",
      password: "s3cret-kafka",
    });
  });

  it("takes a whole URL from a file", () => {
    const url = pems.write("db-url", "postgres://gw:from-file@db.internal/gw\n");
    const { GATEWAY_DATABASE_URL_FILE: _, ...rest } = { ...base, GATEWAY_DATABASE_URL_FILE: url };
    const env = parseEnvWith(schema, {
      ...rest,
      GATEWAY_DATABASE_URL: undefined,
      GATEWAY_DATABASE_URL_FILE: url,
    });
    expect(env.GATEWAY_DATABASE_URL).toBe("postgres://gw:from-file@db.internal/gw");
  });

  it("refuses a setting given both ways, in one line", () => {
    const file = pems.write("redis-password", "from-file");
    expect(problems({ GATEWAY_REDIS_PASSWORD: "direct-value", GATEWAY_REDIS_PASSWORD_FILE: file })).toEqual([
      "GATEWAY_REDIS_PASSWORD_FILE: GATEWAY_REDIS_PASSWORD is set too; set one of them",
    ]);
  });

  it("stops on a missing file with one line naming the setting and the file, not also 'required'", () => {
    const env = {
      ...base,
      GATEWAY_DATABASE_URL: undefined,
      GATEWAY_DATABASE_URL_FILE: "/nonexistent/db-url",
    };
    expect(() => parseEnvWith(schema, env)).toThrow(
      "Invalid configuration:\n  GATEWAY_DATABASE_URL_FILE: cannot read /nonexistent/db-url (ENOENT)",
    );
    expect(() => parseEnvWith(schema, env)).not.toThrow(/GATEWAY_DATABASE_URL:/);
  });

  it("stops on a missing password file with that one line, not also the SASL rule that needs the password", () => {
    expect(
      problems({
        GATEWAY_KAFKA_SASL_MECHANISM: "SCRAM-SHA-512",
        GATEWAY_KAFKA_SASL_USERNAME: "gateway",
        GATEWAY_KAFKA_SASL_PASSWORD_FILE: "/nonexistent/kafka-password",
      }),
    ).toEqual(["GATEWAY_KAFKA_SASL_PASSWORD_FILE: cannot read /nonexistent/kafka-password (ENOENT)"]);
  });

  it("does not read <NAME>_FILE for a setting that is not a secret", () => {
    const file = pems.write("namespace", "from-file");
    expect(parse({ GATEWAY_REDIS_NAMESPACE_FILE: file }).GATEWAY_REDIS_NAMESPACE).toBe("gw");
  });

  it("never shows a secret's value in an error", () => {
    const secretValue = "hunter2-do-not-print";
    const lines = problems({
      GATEWAY_REDIS_URL: `http://user:${secretValue}@cache:6379`,
      GATEWAY_DATABASE_URL: `postgres://gw:${secretValue}@db/gw?sslrootcert=/etc/ca.pem`,
      GATEWAY_KAFKA_SASL_MECHANISM: "plain",
      GATEWAY_KAFKA_SASL_PASSWORD: secretValue,
      GATEWAY_S3_SECRET_KEY: secretValue,
      GATEWAY_KAFKA_KEY_FILE: pems.write("key-as-text", `-----BEGIN PRIVATE KEY-----\n${secretValue}\n`),
    });
    expect(lines.map((line) => line.split(":")[0]).sort()).toEqual([
      "GATEWAY_DATABASE_URL",
      "GATEWAY_KAFKA_KEY_FILE",
      "GATEWAY_REDIS_URL",
    ]);
    expect(lines.join("\n")).not.toContain(secretValue);
  });
});

describe("TLS files", () => {
  it("reads a CA bundle and a client key pair for Kafka's mutual TLS", () => {
    const env = parse({
      GATEWAY_KAFKA_CA_FILE: pems.file("ca.crt"),
      GATEWAY_KAFKA_CERT_FILE: pems.file("ca.crt"),
      GATEWAY_KAFKA_KEY_FILE: pems.file("ca.key"),
    });
    expect(kafkaSecurity(env).tls).toEqual({
      ca: readFileSync(pems.file("ca.crt"), "utf8"),
      cert: readFileSync(pems.file("ca.crt"), "utf8"),
      key: readFileSync(pems.file("ca.key"), "utf8"),
    });
  });

  it("stops on a missing or a non-PEM CA file, naming the setting", () => {
    expect(
      problems({ GATEWAY_REDIS_CA_FILE: "/nonexistent/ca.crt", GATEWAY_REDIS_URL: "rediss://cache:6380" }),
    ).toEqual(["GATEWAY_REDIS_CA_FILE: cannot read /nonexistent/ca.crt (ENOENT)"]);
    expect(problems({ GATEWAY_KAFKA_CA_FILE: pems.file("not-pem.txt") })).toEqual([
      `GATEWAY_KAFKA_CA_FILE: ${pems.file("not-pem.txt")} holds no valid PEM CA certificate`,
    ]);
    expect(
      problems({ GATEWAY_KAFKA_KEY_FILE: pems.file("ca.crt"), GATEWAY_KAFKA_CERT_FILE: pems.file("ca.crt") }),
    ).toEqual([
      `GATEWAY_KAFKA_KEY_FILE: ${pems.file("ca.crt")} holds no valid PEM private key (unencrypted)`,
    ]);
  });
});

describe("Kafka", () => {
  it("is plaintext without settings, TLS with the system's CAs with GATEWAY_KAFKA_TLS", () => {
    expect(kafkaSecurity(parse({}))).toEqual({});
    expect(kafkaSecurity(parse({ GATEWAY_KAFKA_TLS: "true" }))).toEqual({ tls: true });
  });

  it.each([
    [
      { GATEWAY_KAFKA_SASL_MECHANISM: "scram-sha-256" },
      "GATEWAY_KAFKA_SASL_MECHANISM: needs GATEWAY_KAFKA_SASL_USERNAME and GATEWAY_KAFKA_SASL_PASSWORD",
    ],
    [
      { GATEWAY_KAFKA_SASL_USERNAME: "gateway" },
      "GATEWAY_KAFKA_SASL_MECHANISM: is unset, but a SASL user or password is given",
    ],
    [
      { GATEWAY_KAFKA_MIN_INSYNC_REPLICAS: "3", GATEWAY_KAFKA_REPLICATION_FACTOR: "2" },
      "GATEWAY_KAFKA_MIN_INSYNC_REPLICAS: is larger than GATEWAY_KAFKA_REPLICATION_FACTOR: no write could succeed",
    ],
  ])("refuses %j", (env, line) => {
    expect(problems(env)).toEqual([line]);
  });

  it("refuses AWS_MSK_IAM, saying what to use on MSK instead", () => {
    const [line] = problems({ GATEWAY_KAFKA_SASL_MECHANISM: "AWS_MSK_IAM" });
    expect(line).toMatch(
      /^GATEWAY_KAFKA_SASL_MECHANISM: AWS_MSK_IAM is not supported by kafkajs .* use SCRAM-SHA-512 or mutual TLS$/,
    );
  });

  it("refuses a client certificate without its key", () => {
    expect(problems({ GATEWAY_KAFKA_CERT_FILE: pems.file("ca.crt") })).toEqual([
      "GATEWAY_KAFKA_CERT_FILE: mutual TLS takes both GATEWAY_KAFKA_CERT_FILE and GATEWAY_KAFKA_KEY_FILE",
    ]);
  });
});

describe("Redis", () => {
  it("reaches a rediss:// URL as an ACL user, trusting the CA file", () => {
    const env = parse({
      GATEWAY_REDIS_URL: "rediss://gateway:p%40ss@cache.internal:6380/2",
      GATEWAY_REDIS_CA_FILE: pems.file("ca.crt"),
    });
    expect(redisOptions(env)).toMatchObject({
      host: "cache.internal",
      port: 6380,
      db: 2,
      username: "gateway",
      password: "p@ss",
      tls: { ca: readFileSync(pems.file("ca.crt"), "utf8") },
    });
  });

  it("takes the user and password from their own settings over the URL's", () => {
    const password = pems.write("redis-pw", "from-file\n");
    const env = parse({ GATEWAY_REDIS_USERNAME: "gw", GATEWAY_REDIS_PASSWORD_FILE: password });
    expect(redisOptions(env)).toMatchObject({ username: "gw", password: "from-file" });
    expect(redisOptions(env)).not.toHaveProperty("tls");
  });

  it("asks the sentinels for the primary, over TLS to both", () => {
    const env = parseEnvWith(schema, {
      ...base,
      GATEWAY_REDIS_URL: undefined,
      GATEWAY_REDIS_SENTINELS: "10.0.0.1:26379, sentinel-2:26379",
      GATEWAY_REDIS_SENTINEL_MASTER: "gw-primary",
      GATEWAY_REDIS_SENTINEL_PASSWORD: "sentinel-pw",
      GATEWAY_REDIS_USERNAME: "gateway",
      GATEWAY_REDIS_PASSWORD: "redis-pw",
      GATEWAY_REDIS_TLS: "true",
      GATEWAY_REDIS_CA_FILE: pems.file("ca.crt"),
    });
    const ca = readFileSync(pems.file("ca.crt"), "utf8");
    expect(redisOptions(env)).toMatchObject({
      sentinels: [
        { host: "10.0.0.1", port: 26379 },
        { host: "sentinel-2", port: 26379 },
      ],
      name: "gw-primary",
      sentinelPassword: "sentinel-pw",
      sentinelTLS: { ca },
      enableTLSForSentinelMode: true,
      tls: { ca },
      username: "gateway",
      password: "redis-pw",
    });
    expect(redisOptions(env)).not.toHaveProperty("host");
  });

  it.each([
    [
      { GATEWAY_REDIS_SENTINELS: "s1:26379", GATEWAY_REDIS_SENTINEL_MASTER: "m" },
      "GATEWAY_REDIS_URL: not with GATEWAY_REDIS_SENTINELS",
    ],
    [
      { GATEWAY_REDIS_URL: "", GATEWAY_REDIS_SENTINELS: "s1:26379" },
      "GATEWAY_REDIS_SENTINEL_MASTER: is required with GATEWAY_REDIS_SENTINELS",
    ],
    [{ GATEWAY_REDIS_URL: "" }, "GATEWAY_REDIS_URL: is required (or GATEWAY_REDIS_SENTINELS)"],
    [{ GATEWAY_REDIS_URL: "http://cache:6379" }, "GATEWAY_REDIS_URL: expected a redis:// or rediss:// URL"],
    [
      { GATEWAY_REDIS_TLS: "true" },
      "GATEWAY_REDIS_TLS: is for Sentinel; with GATEWAY_REDIS_URL, rediss:// means TLS",
    ],
  ])("refuses %j", (env, start) => {
    const lines = problems(env);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.startsWith(start)).toBe(true);
  });

  it("refuses a CA file without TLS", () => {
    expect(problems({ GATEWAY_REDIS_CA_FILE: pems.file("ca.crt") })).toEqual([
      "GATEWAY_REDIS_CA_FILE: needs TLS: a rediss:// URL, or GATEWAY_REDIS_TLS=true with Sentinel",
    ]);
  });
});

describe("PostgreSQL and S3", () => {
  it("refuses a CA file with an sslmode other than verify-full, and sslrootcert in the URL", () => {
    expect(
      problems({
        GATEWAY_DATABASE_URL: "postgres://db/gw?sslmode=require",
        GATEWAY_DATABASE_CA_FILE: pems.file("ca.crt"),
      }),
    ).toEqual(["GATEWAY_DATABASE_CA_FILE: means sslmode=verify-full; the URL asks for sslmode=require"]);
    expect(
      problems({ GATEWAY_DATABASE_URL: "postgres://db/gw?sslmode=verify-full&sslrootcert=/ca.pem" }),
    ).toEqual([
      "GATEWAY_DATABASE_URL: sslrootcert=<file> is not read from the URL; give the file as GATEWAY_DATABASE_CA_FILE",
    ]);
    expect(
      parse({ GATEWAY_DATABASE_URL: "postgres://db/gw?sslrootcert=system" }).GATEWAY_DATABASE_URL,
    ).toContain("system");
  });

  it("says a database URL that does not parse is invalid, in one line naming it, with or without a CA file", () => {
    const withCa: Record<string, string>[] = [{}, { GATEWAY_DATABASE_CA_FILE: pems.file("ca.crt") }];
    for (const ca of withCa) {
      const lines = problems({ GATEWAY_DATABASE_URL: "postgres://db internal:5432/gw", ...ca });
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^GATEWAY_DATABASE_URL: /);
    }
  });

  it("takes a CA file for an https endpoint only", () => {
    expect(
      problems({ GATEWAY_S3_CA_FILE: pems.file("ca.crt"), GATEWAY_S3_ENDPOINT: "http://minio:9000" }),
    ).toEqual(["GATEWAY_S3_CA_FILE: needs an https:// GATEWAY_S3_ENDPOINT (AWS S3 itself has a public CA)"]);
    const env = parse({ GATEWAY_S3_CA_FILE: pems.file("ca.crt"), GATEWAY_S3_ENDPOINT: "https://minio:9000" });
    expect(env.GATEWAY_S3_CA_FILE).toContain("BEGIN CERTIFICATE");
  });
});
