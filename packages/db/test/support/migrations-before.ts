import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import type { DbHandle, SqliteDb } from "../../src/index.ts";

const migrations = (dialect: string) =>
  fileURLToPath(new URL(`../../migrations/${dialect}`, import.meta.url));

/**
 * A copy of the dialect's migrations that stops before the one whose tag ends in `tagSuffix`,
 * and a way to remove it: a store as an earlier release left it.
 */
export async function migrationsBefore(
  dialect: "postgres" | "sqlite",
  tagSuffix: string,
): Promise<{ folder: string; remove: () => Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), "gw-migrations-"));
  await cp(migrations(dialect), folder, { recursive: true });
  const journalFile = join(folder, "meta/_journal.json");
  const journal = JSON.parse(await readFile(journalFile, "utf8")) as { entries: { tag: string }[] };
  const stop = journal.entries.findIndex((e) => e.tag.endsWith(tagSuffix));
  if (stop < 0) throw new Error(`no ${dialect} migration ends in ${tagSuffix}`);
  journal.entries = journal.entries.slice(0, stop);
  await writeFile(journalFile, JSON.stringify(journal));
  return { folder, remove: () => rm(folder, { recursive: true, force: true }) };
}

/** Runs the migrations of `folder` with drizzle's migrator, as `runMigrations` does. */
export async function migrateWith(handle: DbHandle, folder: string): Promise<void> {
  if (handle.kind === "sqlite") {
    const db = handle.db as SqliteDb;
    const { migrate } = await import("drizzle-orm/better-sqlite3/migrator");
    await db.connection.holdTurn(async () => migrate(db.orm as never, { migrationsFolder: folder }));
  } else {
    const { migrate } = await import("drizzle-orm/postgres-js/migrator");
    await migrate(handle.db as unknown as PostgresJsDatabase, { migrationsFolder: folder });
  }
}
