/** Linux /proc readings of another process: CPU time and peak memory. */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

export function clockTicksPerSecond(): number {
  try {
    const ticks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    if (Number.isInteger(ticks) && ticks > 0) return ticks;
  } catch {
    // No getconf: fall through to the value every mainstream Linux uses.
  }
  return 100;
}

/** utime + stime from a /proc stat line, in clock ticks. */
function statTicks(stat: string): number {
  // The command name (field 2) may hold spaces and parentheses; the fields after its last ")" are fixed.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state), so utime (field 14) and stime (field 15) are at 11 and 12.
  return Number(fields[11]) + Number(fields[12]);
}

/** utime + stime of every thread of the process, in clock ticks. */
export function cpuTicks(pid: number): number {
  return statTicks(readFileSync(`/proc/${pid}/stat`, "utf8"));
}

/** The kinds of thread a node process runs, by the name node and V8 give them. */
export const threadKinds = {
  main: "main thread",
  worker: "worker threads",
  v8: "V8 helpers (GC, compiler)",
  libuv: "libuv pool (files)",
  other: "other",
} as const;
export type ThreadKind = keyof typeof threadKinds;

function threadKind(name: string): ThreadKind {
  if (name === "MainThread") return "main";
  if (name === "WorkerThread") return "worker";
  if (name.startsWith("V8Worker")) return "v8";
  if (name === "libuv-worker") return "libuv";
  return "other";
}

/**
 * CPU ticks of the process by kind of thread. A thread that ended since an earlier reading takes
 * its ticks with it, so read this only where threads live as long as the process (node's do).
 */
export function cpuTicksByThread(pid: number): Record<ThreadKind, number> {
  const ticks: Record<ThreadKind, number> = { main: 0, worker: 0, v8: 0, libuv: 0, other: 0 };
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      ticks[threadKind(name)] += statTicks(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8"));
    } catch {
      // The thread ended between listing and reading.
    }
  }
  return ticks;
}

export interface Memory {
  /** Peak resident set size since the process started (VmHWM). */
  peakKb: number;
  rssKb: number;
}

export function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { peakKb: kb("VmHWM"), rssKb: kb("VmRSS") };
}

/**
 * Waits until the process is (nearly) idle: two consecutive 250 ms intervals of at most one tick.
 * The gateway writes captures and events after the response has gone; that work belongs to the
 * requests that caused it, and must not leak into the next target's window. Returns the ms waited.
 */
export async function settle(pid: number, maxMs: number): Promise<number> {
  const started = performance.now();
  let previous = cpuTicks(pid);
  let quiet = 0;
  while (performance.now() - started < maxMs) {
    await sleep(250);
    const now = cpuTicks(pid);
    quiet = now - previous <= 1 ? quiet + 1 : 0;
    previous = now;
    if (quiet >= 2) break;
  }
  return performance.now() - started;
}

/** Busy ticks of the whole machine, all cores (/proc/stat: everything but idle and iowait). */
export function machineBusyTicks(): number {
  const cpuLine = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!;
  const [, ...ticks] = cpuLine.trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user and nice).
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks;
  return user + nice + system + irq + softirq + steal;
}

/**
 * Waits (up to maxMs) for a second in which the whole machine used less than `maxPct` of one core.
 * Called while all benchmark processes are idle, so what it sees is everyone else's load: on a
 * shared machine, a window started during someone's test suite measures the suite. Returns the ms
 * waited and whether quiet came.
 */
export async function waitForQuiet(
  clockTicks: number,
  maxPct: number,
  maxMs: number,
): Promise<{ waitedMs: number; quiet: boolean }> {
  const started = performance.now();
  for (;;) {
    const before = machineBusyTicks();
    await sleep(1000);
    const busyPct = ((machineBusyTicks() - before) / clockTicks) * 100;
    const waitedMs = performance.now() - started;
    if (busyPct < maxPct) return { waitedMs, quiet: true };
    if (waitedMs >= maxMs) return { waitedMs, quiet: false };
  }
}
