import { readFileSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import postgres from "postgres";
import type { EngineSet } from "./engine-sets.ts";

/**
 * The split deployment's engines from the secured set that `infra/secure/engines.sh start` runs
 * (.ci/run starts it and exports the SECURE_* settings that `engines.sh env` prints): Kafka over
 * SASL_SSL (SCRAM-SHA-512) on 3 brokers, Redis over TLS as an ACL user through Sentinel,
 * PostgreSQL with verify-full against the test CA, MinIO over HTTPS with the CA file. Every
 * engine secret reaches the apps as a `<NAME>_FILE`, as a Kubernetes Secret mounted as files would.
 */
export interface SecureEngines extends EngineSet {
  /** Inside the database URL's secret file: no app output may show it, even with the URL cut up. */
  databasePassword: string;
}

/**
 * Every secret a split deployment's apps were given: the content of each `<NAME>_FILE` setting,
 * and the database password inside its URL. No app's output may ever show one.
 */
export function secretsOf(d: { env: Record<string, string>; engines: SecureEngines }): string[] {
  const files = Object.entries(d.env).filter(
    ([name]) => name.endsWith("_FILE") && !name.endsWith("_CA_FILE"),
  );
  return [d.engines.databasePassword, ...files.map(([, file]) => readFileSync(file, "utf8").trim())];
}

/** A SECURE_* setting of `infra/secure/engines.sh env`. */
function secure(name: string): string {
  const value = process.env[`SECURE_${name}`];
  if (!value) throw new Error(`SECURE_${name} is not set: export the lines of infra/secure/engines.sh env`);
  return value;
}

/** A file of the throwaway CA's folder: `ca.crt`, or `wrong-ca.crt` (an unrelated CA). */
export const caFile = (name = "ca.crt") => join(secure("CA_DIR"), name);

/**
 * Writes each secret to a file of its own in `dir` (readable by its owner only) and returns the
 * `<NAME>_FILE` settings that name them.
 */
export async function secretFiles(
  dir: string,
  secrets: Record<string, string>,
): Promise<Record<string, string>> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const settings: Record<string, string> = {};
  for (const [name, value] of Object.entries(secrets)) {
    const file = join(dir, name.toLowerCase());
    // with the trailing newline `echo` or an editor would leave: the apps drop it
    await writeFile(file, `${value}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
    settings[`${name}_FILE`] = file;
  }
  return settings;
}

/**
 * The test's own client (postgres.js reads no `sslrootcert` from a URL): TLS verified against
 * the CA, the certificate's name checked as `localhost` (the URL's host is 127.0.0.1).
 */
function pgClient(url: string, max: number): postgres.Sql {
  const target = new URL(url);
  target.searchParams.delete("sslrootcert");
  target.searchParams.delete("sslmode");
  return postgres(target.toString(), {
    max,
    onnotice: () => {},
    ssl: { ca: readFileSync(caFile(), "utf8"), servername: "localhost" },
  });
}

/**
 * A fresh database on the secured PostgreSQL, made by the superuser and owned by the apps' user
 * (as a DBA would hand one over): its URL for the apps (`sslmode=verify-full`, the password in
 * it; the CA goes in GATEWAY_DATABASE_CA_FILE, since the apps refuse `sslrootcert` in a URL).
 */
export async function freshSecureDatabase(name: string): Promise<{ url: URL; drop(): Promise<void> }> {
  const admin = pgClient(secure("PG_ADMIN_URL"), 1);
  await admin.unsafe(`create database ${name} owner "${new URL(secure("PG_URL")).username}"`);
  await admin.end();
  const url = new URL(secure("PG_URL"));
  url.pathname = `/${name}`;
  url.searchParams.delete("sslrootcert");
  return {
    url,
    async drop() {
      const again = pgClient(secure("PG_ADMIN_URL"), 1);
      await again.unsafe(`drop database if exists ${name} with (force)`);
      await again.end();
    },
  };
}

/**
 * A fresh database, a Kafka name prefix the ACLs allow (`e2e-`), a Redis namespace under the ACL
 * user's `gw:*` and a fresh S3 key prefix: nothing of another run is seen.
 */
export async function secureEngines(work: string, run: string): Promise<SecureEngines> {
  const { url, drop } = await freshSecureDatabase(`e2e_secure_${run}`);
  const secrets = {
    GATEWAY_DATABASE_URL: url.toString(),
    GATEWAY_KAFKA_SASL_PASSWORD: secure("KAFKA_PASSWORD"),
    GATEWAY_REDIS_PASSWORD: secure("REDIS_PASSWORD"),
    GATEWAY_REDIS_SENTINEL_PASSWORD: secure("REDIS_SENTINEL_PASSWORD"),
    GATEWAY_S3_ACCESS_KEY: process.env.GATEWAY_S3_ACCESS_KEY ?? "gateway-dev",
    GATEWAY_S3_SECRET_KEY: process.env.GATEWAY_S3_SECRET_KEY ?? "gateway-dev-secret-key",
  };
  const sql = pgClient(url.toString(), 2);
  return {
    sql,
    databasePassword: decodeURIComponent(url.password),
    env: {
      ...(await secretFiles(join(work, "engine-secrets"), secrets)),
      GATEWAY_DATABASE_CA_FILE: caFile(),
      GATEWAY_DATABASE_POOL_SIZE: "5",
      GATEWAY_KAFKA_BROKERS: secure("KAFKA_BROKERS"),
      GATEWAY_KAFKA_CA_FILE: caFile(),
      GATEWAY_KAFKA_SASL_MECHANISM: "SCRAM-SHA-512",
      GATEWAY_KAFKA_SASL_USERNAME: secure("KAFKA_USER"),
      GATEWAY_KAFKA_NAME_PREFIX: `e2e-secure-${run}.`,
      GATEWAY_KAFKA_PARTITIONS: "3",
      GATEWAY_REDIS_SENTINELS: secure("REDIS_SENTINELS"),
      GATEWAY_REDIS_SENTINEL_MASTER: secure("REDIS_MASTER_NAME"),
      GATEWAY_REDIS_USERNAME: secure("REDIS_USER"),
      GATEWAY_REDIS_TLS: "true",
      GATEWAY_REDIS_CA_FILE: caFile(),
      GATEWAY_REDIS_NAMESPACE: `gw:e2e-secure-${run}`,
      GATEWAY_S3_ENDPOINT: secure("S3_URL"),
      GATEWAY_S3_CA_FILE: caFile(),
      GATEWAY_S3_BUCKET: process.env.GATEWAY_S3_BUCKET ?? "gateway-captures",
      GATEWAY_S3_PREFIX: `e2e-secure-${run}/`,
      GATEWAY_S3_REGION: process.env.GATEWAY_S3_REGION ?? "us-east-1",
      GATEWAY_S3_FORCE_PATH_STYLE: "true",
    },
    async stop() {
      await sql.end();
      await drop();
    },
  };
}
