import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Db, type DbHandle, openDb, queryRows, runMigrations } from "@gateway/db";
import { sql } from "drizzle-orm";

/**
 * The seeded day's store, kept between runs (seeding takes minutes): the database
 * `gateway_bench_100m` on `infra/postgres.sh`'s server (or BENCH_POSTGRES_URL), or
 * `/tmp/gateway-bench-100m/gateway.db`. BENCH_DROP=1 drops it at the end of the run.
 */
export interface DayStore {
  name: "postgres" | "sqlite";
  db: Db;
  sizeBytes(): Promise<number>;
  /** Statistics after the bulk load: PostgreSQL's `vacuum analyze`; nothing on SQLite, as the product runs none. */
  settle(): Promise<void>;
  close(): Promise<void>;
  drop(): Promise<void>;
}

const database = "gateway_bench_100m";
const sqliteDir = "/tmp/gateway-bench-100m";

async function openPostgres(): Promise<DayStore> {
  const server =
    process.env.BENCH_POSTGRES_URL ??
    execFileSync("bash", ["infra/postgres.sh", "url"], { encoding: "utf8" }).trim();
  const admin = await openDb({ kind: "postgres", url: server, max: 1 });
  const [found] = await queryRows(admin.db, sql`select 1 from pg_database where datname = ${database}`);
  if (!found) await queryRows(admin.db, sql.raw(`create database ${database}`));
  const url = new URL(server);
  url.pathname = `/${database}`;
  // four connections, as the control plane's reports run their queries side by side
  const handle = await migrated(openDb({ kind: "postgres", url: url.toString(), max: 4 }));
  const { db } = handle;
  return {
    name: "postgres",
    db,
    async sizeBytes() {
      const [row] = await queryRows<{ n: string }>(db, sql`select pg_database_size(current_database()) as n`);
      return Number(row?.n);
    },
    async settle() {
      await queryRows(db, sql`vacuum analyze calls`);
      await queryRows(db, sql`vacuum analyze call_rollups_hourly`);
      await queryRows(db, sql`vacuum analyze call_rollups_minutely`);
    },
    async close() {
      await handle.close();
      await admin.close();
    },
    async drop() {
      await handle.close();
      await queryRows(admin.db, sql.raw(`drop database if exists ${database} with (force)`));
      await admin.close();
    },
  };
}

async function openSqlite(): Promise<DayStore> {
  mkdirSync(sqliteDir, { recursive: true });
  const handle = await migrated(openDb({ kind: "sqlite", file: join(sqliteDir, "gateway.db") }));
  const { db } = handle;
  return {
    name: "sqlite",
    db,
    async sizeBytes() {
      return readdirSync(sqliteDir).reduce((sum, file) => sum + statSync(join(sqliteDir, file)).size, 0);
    },
    async settle() {
      await queryRows(db, sql`pragma wal_checkpoint(truncate)`);
    },
    close: () => handle.close(),
    async drop() {
      await handle.close();
      rmSync(sqliteDir, { recursive: true, force: true });
    },
  };
}

async function migrated(opening: Promise<DbHandle>): Promise<DbHandle> {
  const handle = await opening;
  await runMigrations(handle);
  return handle;
}

export const openDayStore = { postgres: openPostgres, sqlite: openSqlite };
