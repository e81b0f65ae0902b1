import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema/index.ts";

export type Schema = typeof schema;
/** The one database type every app codes against; PGlite and PostgreSQL both satisfy it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export type DbConfig =
  /** `ownThread`: run PGlite on a worker thread, off the thread that serves traffic. */
  | { kind: "pglite"; dataDir: string | null; ownThread?: boolean }
  | {
      kind: "postgres";
      url: string;
      max?: number;
      /** PEM of the CAs the server's certificate must chain to: TLS with verify-full (chain and host name). */
      ca?: string;
    };

export interface DbHandle {
  db: Db;
  kind: DbConfig["kind"];
  /**
   * Runs `work` while holding the database-wide startup lock, so that several processes
   * starting together (control-plane replicas) migrate, seed and create the first org once.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Opens the relational store: PGlite on disk (or in memory when `dataDir` is null), or PostgreSQL.
 * Each driver is imported only when it is opened, so a split app never loads PGlite (and the
 * standalone process on PGlite never loads postgres.js).
 */
export async function openDb(config: DbConfig): Promise<DbHandle> {
  if (config.kind === "pglite") return (await import("./open-pglite.ts")).openPglite(config);
  return (await import("./open-postgres.ts")).openPostgres(config);
}
