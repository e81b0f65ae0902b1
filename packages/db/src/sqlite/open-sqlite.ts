import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { BetterSQLiteSession } from "drizzle-orm/better-sqlite3/session";
import { BaseSQLiteDatabase, SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import type { DbHandle } from "../client.ts";
import { SqliteConnection } from "./connection.ts";
import { SqliteDb } from "./sqlite-db.ts";

/**
 * Node 22.13-24.x print an ExperimentalWarning the first time `node:sqlite` loads (24.21 does
 * not): a user must not see a warning about our choice of module. Only that one warning is held
 * back, and only while the module loads.
 */
async function loadNodeSqlite(): Promise<typeof import("node:sqlite")> {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: never[]) => {
    const text = typeof warning === "string" ? warning : warning.message;
    if (/SQLite is an experimental feature/.test(text)) return;
    emitWarning.call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return await import("node:sqlite");
  } finally {
    process.emitWarning = emitWarning;
  }
}

/**
 * SQLite in one file (or in memory when `file` is null). WAL with `synchronous=NORMAL`: a commit
 * reaches the OS before it returns and the disk at checkpoints, so a committed write survives a
 * kill of the process (docs/decisions.md, "Write path and durability").
 */
export async function openSqlite(config: { file: string | null }): Promise<DbHandle<SqliteDb>> {
  const { DatabaseSync } = await loadNodeSqlite();
  requireFts5(new DatabaseSync(":memory:"));
  if (config.file) mkdirSync(dirname(config.file), { recursive: true });
  const raw = new DatabaseSync(config.file ?? ":memory:");
  raw.exec(`pragma journal_mode = wal; pragma synchronous = normal; pragma busy_timeout = 5000;
            pragma foreign_keys = on;`);
  const connection = new SqliteConnection(raw);
  const dialect = new SQLiteSyncDialect();
  const session = new BetterSQLiteSession(connection.drizzleClient() as never, dialect, undefined);
  const db = new SqliteDb(new BaseSQLiteDatabase("sync", dialect, session, undefined), connection, 0);
  // One process owns the file (the data dir is locked): its startup callers only take turns.
  let turn: Promise<unknown> = Promise.resolve();
  return {
    db,
    kind: "sqlite",
    exclusive(work) {
      const result = turn.then(work, work);
      turn = result.catch(() => {});
      return result;
    },
    close: () => connection.holdTurn(() => raw.close()),
  };
}

/**
 * The upstream ids are looked up through an FTS5 table (migration 0006): said at open, in one
 * line, rather than as "no such module" from inside a migration. Probed on a database in memory:
 * a start refused here leaves no `gateway.db`, whose presence tells the next start that a PGlite
 * data dir beside it was already imported.
 */
function requireFts5(probe: import("node:sqlite").DatabaseSync): void {
  const row = probe.prepare("select sqlite_compileoption_used('ENABLE_FTS5') as fts5").get();
  probe.close();
  if (row?.fts5 !== 1)
    throw new Error(
      `the embedded store needs SQLite's FTS5, which node:sqlite has from Node.js 22.16: this is ${process.version}`,
    );
}
