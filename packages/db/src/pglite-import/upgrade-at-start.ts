import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Logger } from "@gateway/contracts";

/** The file and SQLite's companions (`-wal`, `-shm`) of a store at `file`. */
const sqliteFiles = (file: string) => [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** "20261128T103800Z": a time in a file name, sortable and free of colons. */
const compactTime = (at: Date) => at.toISOString().replace(/[-:]|\.\d+/g, "");

/**
 * The upgrade from PGlite, run by the standalone process at start before it opens its SQLite
 * store: when `<dataDir>/pg` exists and `sqliteFile` does not, imports it into a temporary file,
 * fsyncs it, renames it into place, then moves `<dataDir>/pg` aside to `pg.imported-<time>` (kept,
 * never deleted) and logs one line: rows per table and seconds. Returns what it did. The SQLite
 * file is renamed in before the PGlite dir is moved, so a kill at any point leaves either the old
 * store to import again or the new one complete. An import that fails removes its temporary file
 * and leaves the PGlite dir as it was, logs why in one line and throws: the process must not start
 * on an empty store, and its next start tries again.
 * @public the standalone process calls it at start (issue 37).
 */
export async function upgradeFromPglite(options: {
  dataDir: string;
  sqliteFile: string;
  log: Logger;
  pageSize?: number;
}): Promise<{ imported: false } | { imported: true; rows: Record<string, number>; keptAt: string }> {
  const pgliteDir = join(options.dataDir, "pg");
  if (existsSync(options.sqliteFile) || !existsSync(pgliteDir)) return { imported: false };
  const temporary = `${options.sqliteFile}.importing`;
  const removeTemporary = () => {
    for (const file of sqliteFiles(temporary)) rmSync(file, { force: true });
  };
  const started = performance.now();
  let rows: Record<string, number>;
  try {
    removeTemporary(); // what a killed import left
    // PGlite is loaded here, only when there is a dir of its own to read: never by a running store
    const { importPgliteDataDir } = await import("./import-pglite.ts");
    rows = await importPgliteDataDir({ pgliteDir, sqliteFile: temporary, pageSize: options.pageSize });
    // closed, so the WAL is checkpointed into the file and removed: the file alone is the store
    fsyncPath(temporary);
    renameSync(temporary, options.sqliteFile);
    fsyncPath(dirname(options.sqliteFile));
  } catch (error) {
    removeTemporary();
    const reason = error instanceof Error ? error.message : String(error);
    options.log.error(
      `importing the PGlite data dir ${pgliteDir} into SQLite failed, nothing changed (the next start tries again): ${reason}`,
    );
    throw error;
  }
  let keptAt = join(options.dataDir, `pg.imported-${compactTime(new Date())}`);
  // the data is in SQLite now, which the next start finds: an old dir left in place is only clutter
  let notMovedAside: string | undefined;
  try {
    renameSync(pgliteDir, keptAt);
    fsyncPath(options.dataDir);
  } catch (error) {
    keptAt = pgliteDir;
    notMovedAside = error instanceof Error ? error.message : String(error);
  }
  const seconds = Math.round(performance.now() - started) / 1000;
  options.log.info("imported the PGlite data dir into SQLite", {
    rows,
    seconds,
    sqlite_file: options.sqliteFile,
    kept_at: keptAt,
    ...(notMovedAside ? { not_moved_aside: notMovedAside } : {}),
  });
  return { imported: true, rows, keptAt };
}
