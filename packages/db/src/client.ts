import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema/index.ts";
import type { SqliteDb } from "./sqlite/sqlite-db.ts";

export type Schema = typeof schema;
/** drizzle's PostgreSQL database (postgres.js). */
export type PgDb = PgDatabase<PgQueryResultHKT, Schema>;
/**
 * The one database type every app codes against: PostgreSQL or SQLite. Apps hand it to the named
 * functions of this package and never look inside (docs/decisions.md, "The embedded store").
 */
export type Db = PgDb | SqliteDb;
export type { SqliteDb };

export type DbConfig =
  /** SQLite in one file, or in memory when `file` is null. */
  | { kind: "sqlite"; file: string | null }
  | {
      kind: "postgres";
      url: string;
      max?: number;
      /** PEM of the CAs the server's certificate must chain to: TLS with verify-full (chain and host name). */
      ca?: string;
    };

export interface DbHandle<D extends Db = Db> {
  db: D;
  kind: DbConfig["kind"];
  /**
   * Runs `work` while holding the database-wide startup lock, so that several processes
   * starting together (control-plane replicas) migrate, seed and create the first org once.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Opens the relational store: SQLite in a file (or in memory when `file` is null), or
 * PostgreSQL. Each driver is imported only when it is opened, so a split app never loads SQLite
 * (and the embedded process never loads postgres.js).
 */
export async function openDb(config: Extract<DbConfig, { kind: "sqlite" }>): Promise<DbHandle<SqliteDb>>;
export async function openDb(config: Exclude<DbConfig, { kind: "sqlite" }>): Promise<DbHandle<PgDb>>;
export async function openDb(config: DbConfig): Promise<DbHandle>;
export async function openDb(config: DbConfig): Promise<DbHandle> {
  if (config.kind === "sqlite") return (await import("./sqlite/open-sqlite.ts")).openSqlite(config);
  return (await import("./open-postgres.ts")).openPostgres(config);
}
