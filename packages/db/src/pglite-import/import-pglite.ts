import { existsSync } from "node:fs";
import { openDb } from "../client.ts";
import { runMigrations } from "../migrate.ts";
import { copyTables } from "./copy-tables.ts";
import { openPgliteStore } from "./open-pglite.ts";

/** Rows per SQLite transaction: a few thousand, so a commit is rare and a page stays small in memory. */
const defaultPageSize = 2_000;

/**
 * Copies a data dir written by PGlite into a new SQLite file, migrated here: every table, every
 * row, money converted exactly to SQLite's integers (a value that would not convert exactly fails
 * the import, naming its row), timestamps to the millisecond (all a `Date` holds, so all any
 * report or list read). The PGlite dir is first brought to the current PostgreSQL migrations,
 * as the release that wrote it would at its next start. Returns the rows copied per table.
 */
export async function importPgliteDataDir(options: {
  pgliteDir: string;
  sqliteFile: string;
  pageSize?: number;
}): Promise<Record<string, number>> {
  if (!existsSync(options.pgliteDir)) throw new Error(`no PGlite data dir at ${options.pgliteDir}`);
  if (existsSync(options.sqliteFile))
    throw new Error(`${options.sqliteFile} exists: the import writes a new file`);
  const pglite = await openPgliteStore(options.pgliteDir);
  try {
    const sqlite = await openDb({ kind: "sqlite", file: options.sqliteFile });
    try {
      await runMigrations(sqlite);
      return await copyTables(pglite.db, sqlite.db, options.pageSize ?? defaultPageSize);
    } finally {
      await sqlite.close();
    }
  } finally {
    await pglite.close();
  }
}
