import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { type Db, type DbConfig, type DbHandle, openDb, type PgDb } from "../client.ts";
import { runMigrations } from "../migrate.ts";
import { SqliteDb } from "../sqlite/sqlite-db.ts";

/**
 * The stores a test suite runs against: SQLite always, and PostgreSQL when
 * `GATEWAY_TEST_POSTGRES_URL` names a server (CI sets it, and `GATEWAY_TEST_REQUIRE_POSTGRES=1`
 * makes its absence an error instead of a skip). Each PostgreSQL use gets a database of its own.
 */
export function testStores(env: Record<string, string | undefined> = process.env): ("sqlite" | "postgres")[] {
  if (env.GATEWAY_TEST_POSTGRES_URL) return ["sqlite", "postgres"];
  if (env.GATEWAY_TEST_REQUIRE_POSTGRES === "1") {
    throw new Error("GATEWAY_TEST_REQUIRE_POSTGRES=1 but GATEWAY_TEST_POSTGRES_URL is not set");
  }
  return ["sqlite"];
}

/** A fresh, empty PostgreSQL database on the test server; dropped by the returned function. */
export async function freshPostgresDatabase(
  serverUrl: string,
): Promise<{ config: Extract<DbConfig, { kind: "postgres" }>; drop(): Promise<void> }> {
  const name = `gw_test_${randomBytes(6).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    config: { kind: "postgres", url: url.toString(), max: 5 },
    async drop() {
      const again = postgres(serverUrl, { max: 1, onnotice: () => {} });
      await again.unsafe(`drop database if exists ${name} with (force)`);
      await again.end();
    },
  };
}

type TestStore = "sqlite" | "postgres";

/** The PostgreSQL database under `db`, for a test that reaches past the named functions (locks, sessions). */
export function postgresOf(db: Db): PgDb {
  if (db instanceof SqliteDb) throw new Error("this test needs PostgreSQL");
  return db;
}

/** A migrated, empty database on `store` for one test suite; closing it drops a PostgreSQL one. */
export async function openTestDb(
  store: "sqlite",
  env?: Record<string, string | undefined>,
): Promise<DbHandle<SqliteDb>>;
export async function openTestDb(
  store: "postgres",
  env?: Record<string, string | undefined>,
): Promise<DbHandle<PgDb>>;
export async function openTestDb(
  store: TestStore,
  env?: Record<string, string | undefined>,
): Promise<DbHandle>;
export async function openTestDb(
  store: TestStore,
  env: Record<string, string | undefined> = process.env,
): Promise<DbHandle> {
  const fresh = store === "postgres" ? await freshPostgresDatabase(env.GATEWAY_TEST_POSTGRES_URL!) : null;
  const handle = await openDb(fresh?.config ?? { kind: "sqlite", file: null });
  await runMigrations(handle);
  if (!fresh) return handle;
  return {
    ...handle,
    async close() {
      await handle.close();
      await fresh.drop();
    },
  };
}
