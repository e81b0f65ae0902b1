import { spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DirInUseError, lockDir } from "../src/dir-lock.ts";
import { tempDirs } from "./support/spool-dirs.ts";

const freshDir = tempDirs("gw-lock-");
const lockModule = fileURLToPath(new URL("../src/dir-lock.ts", import.meta.url));

/** Another process that takes the lock on `dir` and holds it until killed. */
async function holderProcess(dir: string) {
  const child = spawn(
    process.execPath,
    [
      "--experimental-strip-types",
      "--input-type=module",
      "-e",
      `const { lockDir } = await import(${JSON.stringify(lockModule)}); lockDir(${JSON.stringify(dir)}); console.log("locked"); setInterval(() => {}, 1000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  return child;
}

describe("the directory lock", () => {
  it("refuses a second process while the first runs, and is taken over once it was killed", async () => {
    const dir = await freshDir();
    const holder = await holderProcess(dir);
    try {
      expect(() => lockDir(dir)).toThrow(DirInUseError);
      expect(() => lockDir(dir)).toThrow(`in use by process ${holder.pid}`);
    } finally {
      holder.kill("SIGKILL");
      await new Promise((r) => holder.once("exit", r));
    }
    const lock = lockDir(dir);
    expect(lock.stale?.pid).toBe(holder.pid);
    lock.release();
    expect(await readdir(dir)).toEqual([]);
    // released cleanly: the next one finds nothing stale
    const next = lockDir(dir);
    expect(next.stale).toBeNull();
    next.release();
  });

  it("takes over a lock whose pid now belongs to another process (a container restart)", async () => {
    const dir = await freshDir();
    const first = lockDir(dir);
    const written = JSON.parse(await readFile(first.path, "utf8"));
    // the parent process is alive, but it is not the process that wrote this lock
    await writeFile(first.path, JSON.stringify({ ...written, pid: process.ppid, proc_start: "1" }));
    const second = lockDir(dir);
    expect(second.stale?.pid).toBe(process.ppid);
    second.release();
  });

  it("takes over a lock file that is not a lock it could have written", async () => {
    const dir = await freshDir();
    await writeFile(join(dir, "lock.pid"), "{");
    const lock = lockDir(dir);
    expect(lock.stale).toEqual({ pid: 0, started_at: "unknown" });
    lock.release();
  });
});
