import type { SqliteDb } from "./sqlite-db.ts";

/**
 * Runs `work` in a transaction on SQLite: `BEGIN IMMEDIATE` (the write lock at once, so two
 * transactions never deadlock upgrading) holding the connection's turn until it ends; inside one
 * already, a savepoint, as drizzle does on PostgreSQL. A throw rolls back and rethrows.
 */
export async function sqliteTransaction<T>(db: SqliteDb, work: (tx: SqliteDb) => Promise<T>): Promise<T> {
  const raw = db.connection.raw;
  if (db.depth > 0) {
    const name = `sp${db.depth}`;
    raw.exec(`savepoint ${name}`);
    try {
      const result = await work(db.inner());
      raw.exec(`release savepoint ${name}`);
      return result;
    } catch (error) {
      raw.exec(`rollback to savepoint ${name}; release savepoint ${name}`);
      throw error;
    }
  }
  return db.connection.holdTurn(async () => {
    raw.exec("begin immediate");
    try {
      const result = await work(db.inner());
      raw.exec("commit");
      return result;
    } catch (error) {
      if (raw.isTransaction) raw.exec("rollback");
      throw error;
    }
  });
}
