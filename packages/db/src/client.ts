import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { startPgliteThread } from "./pglite-thread/client.ts";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
/** The one database type every app codes against; PGlite and PostgreSQL both satisfy it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export type DbConfig =
  /** `ownThread`: run PGlite on a worker thread, off the thread that serves traffic. */
  | { kind: "pglite"; dataDir: string | null; ownThread?: boolean }
  | { kind: "postgres"; url: string; max?: number };

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

/** Key of the PostgreSQL advisory lock held during startup work. */
const startupLockKey = 7_316_452_001;

/** Opens the relational store: PGlite on disk (or in memory when `dataDir` is null), or PostgreSQL. */
export async function openDb(config: DbConfig): Promise<DbHandle> {
  if (config.kind === "pglite") {
    if (config.dataDir) mkdirSync(config.dataDir, { recursive: true });
    const client = config.ownThread
      ? (startPgliteThread(config.dataDir) as unknown as PGlite)
      : config.dataDir
        ? new PGlite(config.dataDir)
        : new PGlite();
    await client.waitReady;
    // One PGlite has one user, this process: its callers only need to take turns.
    let turn: Promise<unknown> = Promise.resolve();
    return {
      db: drizzlePglite(client, { schema }) as unknown as Db,
      kind: "pglite",
      exclusive(work) {
        const result = turn.then(work, work);
        turn = result.catch(() => {});
        return result;
      },
      close: () => client.close(),
    };
  }
  const client = postgres(config.url, { max: config.max ?? 10, onnotice: () => {} });
  return {
    db: drizzlePostgres(client, { schema }) as unknown as Db,
    kind: "postgres",
    async exclusive(work) {
      // An advisory lock belongs to a session, so it is taken and released on one reserved connection.
      const session = await client.reserve();
      try {
        await session`select pg_advisory_lock(${startupLockKey})`;
        try {
          return await work();
        } finally {
          await session`select pg_advisory_unlock(${startupLockKey})`;
        }
      } finally {
        session.release();
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}
