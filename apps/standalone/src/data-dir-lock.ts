import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The process that holds (or held) a data dir, as its lock file says. */
export interface LockHolder {
  pid: number;
  started_at: string;
}

export interface DataDirLock {
  /** The lock file's path. */
  path: string;
  /**
   * Set when the last process on this data dir did not stop cleanly (it was killed, or its
   * machine went down): its lock was still there.
   */
  stale: LockHolder | null;
  /** Gives the data dir up; the next process finds no lock. */
  release(): void;
}

export class DataDirInUseError extends Error {
  readonly holder: LockHolder;
  constructor(dir: string, holder: LockHolder, lockPath: string) {
    super(
      `The data dir ${dir} is in use by process ${holder.pid} (started ${holder.started_at}). ` +
        "Two processes on one data dir would corrupt its database: stop that one first, or give this one " +
        `its own GATEWAY_DATA_DIR. If no such process runs any more, delete ${lockPath}.`,
    );
    this.holder = holder;
  }
}

/**
 * Takes the data dir for this process before anything in it is opened, the way PostgreSQL's
 * postmaster.pid does: a lock file created exclusively, holding this process's pid. A lock whose
 * process is gone (or whose pid is now this process's own, as after a container restart) is
 * stale and taken over. Node has no advisory file locks, and an embedded database opened by two
 * processes at once is left unopenable, so a second process is refused here, with the reason.
 */
export function lockDataDir(dir: string): DataDirLock {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, "gateway.pid");
  const mine: LockHolder = { pid: process.pid, started_at: new Date().toISOString() };
  let stale: LockHolder | null = null;
  // The content is written first and linked into place: link() fails when the name exists, so
  // the lock appears whole or not at all, and no reader ever sees it half written.
  const draft = `${path}.${process.pid}`;
  writeFileSync(draft, `${JSON.stringify(mine)}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        linkSync(draft, path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        const holder = readHolder(path);
        if (holder && holder.pid !== process.pid && isAlive(holder.pid))
          throw new DataDirInUseError(dir, holder, path);
        // Its process is gone (or the file is not a lock we wrote): the last stop was not clean.
        stale = holder ?? { pid: 0, started_at: "unknown" };
        unlinkIfPresent(path);
        continue;
      }
      return {
        path,
        stale,
        release() {
          if (readHolder(path)?.pid === process.pid) unlinkIfPresent(path);
        },
      };
    }
  } finally {
    unlinkIfPresent(draft);
  }
  throw new Error(`could not take the lock ${path}: another process keeps taking it`);
}

function readHolder(path: string): LockHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    return typeof parsed.pid === "number" && Number.isInteger(parsed.pid) && parsed.pid > 0
      ? { pid: parsed.pid, started_at: String(parsed.started_at) }
      : null;
  } catch {
    return null;
  }
}

/** Signal 0 checks that a process exists without touching it; EPERM means it exists but is not ours. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function unlinkIfPresent(path: string) {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
