import type { TablesRelationalConfig } from "drizzle-orm";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import type { SqliteConnection } from "./connection.ts";

/** drizzle's synchronous SQLite database over our connection (no relational queries: no schema). */
export type SqliteOrm = BaseSQLiteDatabase<"sync", unknown, Record<string, unknown>, TablesRelationalConfig>;

/**
 * The SQLite store as the named functions take it: the drizzle database, the connection under it,
 * and how deep in a transaction this handle is (0: outside one, so its statements wait their turn).
 */
export class SqliteDb {
  readonly dialect = "sqlite";
  readonly orm: SqliteOrm;
  readonly connection: SqliteConnection;
  readonly depth: number;

  constructor(orm: SqliteOrm, connection: SqliteConnection, depth: number) {
    this.orm = orm;
    this.connection = connection;
    this.depth = depth;
  }

  /** The handle a transaction (or a savepoint inside one) runs its statements through. */
  inner(): SqliteDb {
    return new SqliteDb(this.orm, this.connection, this.depth + 1);
  }
}
