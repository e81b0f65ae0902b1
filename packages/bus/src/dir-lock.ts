import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The process that holds (or held) a directory, as its lock file says. */
export interface LockHolder {
  pid: number;
  started_at: string;
  /**
   * Linux only: the kernel's boot id and the process's start time in clock ticks, so that a pid
   * reused by another process (after a reboot, or a container restart) is not taken for the holder.
   */
  boot_id?: string;
  proc_start?: string;
}

export interface DirLock {
  path: string;
  /**
   * Set when the last process on this directory did not stop cleanly (it was killed, or its
   * machine went down): its lock was still there.
   */
  stale: LockHolder | null;
  /** Gives the directory up; the next process finds no lock. */
  release(): void;
}

export class DirInUseError extends Error {
  readonly holder: LockHolder;
  constructor(dir: string, holder: LockHolder, lockPath: string) {
    super(
      `The directory ${dir} is in use by process ${holder.pid} (started ${holder.started_at}). ` +
        "Two processes on one directory would corrupt what it holds: stop that one first, or give this one " +
        `a directory of its own. If no such process runs any more, delete ${lockPath}.`,
    );
    this.holder = holder;
  }
}

/**
 * Takes `dir` for this process before anything in it is opened, the way PostgreSQL's
 * postmaster.pid does: a lock file holding this process's identity, written whole and linked into
 * place (`link()` fails when the name exists, so the lock appears whole or not at all). A lock
 * whose process is gone is stale and taken over: moved aside atomically, so that of two processes
 * taking over at once only one succeeds. Node has no advisory file locks, and an embedded database,
 * a spool or a journal used by two processes at once is corrupted, so a second process is refused.
 */
export function lockDir(dir: string): DirLock {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, "lock.pid");
  const mine: LockHolder = {
    pid: process.pid,
    started_at: new Date().toISOString(),
    ...identity(process.pid),
  };
  let stale: LockHolder | null = null;
  const draft = `${path}.${process.pid}`;
  writeFileSync(draft, `${JSON.stringify(mine)}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(draft, path);
        return {
          path,
          stale,
          release() {
            if (readHolder(path)?.pid === process.pid) unlinkIfPresent(path);
          },
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const holder = readHolder(path);
      if (holder && isRunning(holder)) throw new DirInUseError(dir, holder, path);
      stale = holder ?? { pid: 0, started_at: "unknown" };
      moveAsideIfStill(path, holder);
    }
  } finally {
    unlinkIfPresent(draft);
  }
  throw new Error(`could not take the lock ${path}: other processes keep taking it`);
}

/**
 * Removes the lock at `path` if it is still the stale `holder`'s. It is renamed first (only one
 * of two racing processes can rename it); if what was renamed is a lock another process took in
 * the meantime, it is linked back.
 */
function moveAsideIfStill(path: string, holder: LockHolder | null) {
  const aside = `${path}.stale-${process.pid}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw error;
  }
  const moved = readHolder(aside);
  if (moved?.pid !== holder?.pid || moved?.started_at !== holder?.started_at) {
    try {
      linkSync(aside, path);
    } catch {
      // a third process holds the name now: its lock stands
    }
  }
  unlinkIfPresent(aside);
}

function readHolder(path: string): LockHolder | null {
  try {
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LockHolder>;
    if (typeof parsed.pid !== "number" || !Number.isInteger(parsed.pid) || parsed.pid <= 0) return null;
    return { ...parsed, pid: parsed.pid, started_at: String(parsed.started_at) };
  } catch {
    return null;
  }
}

/** Whether the lock's process still runs: its pid exists and, where Linux tells, is the same process. */
function isRunning(holder: LockHolder): boolean {
  if (holder.pid === process.pid) return false;
  try {
    // signal 0 only checks; EPERM means it exists but is not ours
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const now = identity(holder.pid);
  if (!holder.boot_id || !now.boot_id) return true;
  return holder.boot_id === now.boot_id && holder.proc_start === now.proc_start;
}

/** The boot id and a process's start time, from /proc; empty where there is no /proc. */
function identity(pid: number): Pick<LockHolder, "boot_id" | "proc_start"> {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // fields after the command name, which may hold spaces; field 22 is the start time
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return start ? { boot_id: boot, proc_start: start } : {};
  } catch {
    return {};
  }
}

function unlinkIfPresent(path: string) {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}
