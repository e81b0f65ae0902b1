import type { Db, PgDb } from "./client.ts";
import * as pgTables from "./schema/index.ts";
import * as sqliteTables from "./sqlite/schema/index.ts";
import { SqliteDb } from "./sqlite/sqlite-db.ts";
import { sqliteTransaction } from "./sqlite/transaction.ts";

type Tables = typeof pgTables;

export function isSqlite(db: Db): db is SqliteDb {
  return db instanceof SqliteDb;
}

/**
 * The dialect's drizzle database and tables, for the query-builder code written once for both.
 * On SQLite they are the SQLite ones typed as their PostgreSQL twins: the builder calls that code
 * uses build the same statements on both at run time, and `test/sqlite-schema.test.ts` holds the
 * twin tables to the same columns and JS values. Only inside `inTransaction` on SQLite (outside
 * one, a statement must wait for the connection's turn: use `query`).
 */
export function builder(db: Db): { orm: PgDb; t: Tables } {
  if (!isSqlite(db)) return { orm: db, t: pgTables };
  if (db.depth === 0) throw new Error("builder(db) outside a transaction on SQLite: use query(db, ...)");
  return { orm: db.orm as unknown as PgDb, t: sqliteTables as unknown as Tables };
}

/**
 * Builds and runs one statement with the dialect's drizzle database and tables (see `builder`).
 * On SQLite, outside a transaction, it runs in the connection's turn, so never inside another
 * caller's open transaction.
 */
export function query<T>(db: Db, build: (orm: PgDb, t: Tables) => PromiseLike<T>): Promise<T> {
  if (!isSqlite(db)) return Promise.resolve(build(db, pgTables));
  const run = () => build(db.orm as unknown as PgDb, sqliteTables as unknown as Tables);
  return db.depth > 0 ? Promise.resolve(run()) : db.connection.holdTurn(run);
}

/** Runs `work` in one transaction (a savepoint inside one already), on either store. */
export function inTransaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  if (isSqlite(db)) return sqliteTransaction(db, work);
  return db.transaction((tx) => work(tx));
}
