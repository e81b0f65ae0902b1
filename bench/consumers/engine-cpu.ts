import { readdirSync, readFileSync } from "node:fs";
import type { Engine } from "../src/split-gateway.ts";
import { engines } from "./consumer-settings.ts";

/** utime+stime of `root` (and of its children that exited) plus every live descendant, in ticks. */
function treeTicks(root: number): number {
  const children = new Map<number, number[]>();
  const own = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(entry);
      const ppid = Number(fields[1]);
      // utime, stime, cutime, cstime are fields 14-17: indexes 11-14 after the command name
      const waited = pid === root ? Number(fields[13]) + Number(fields[14]) : 0;
      own.set(pid, Number(fields[11]) + Number(fields[12]) + waited);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // the process ended while the list was read
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += own.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Each engine's CPU so far (its server process and children), in ticks; NaN for one not found. */
export function engineTicks(pids: Map<Engine, number | null>) {
  const ticks = {} as Record<Engine, number>;
  for (const engine of engines) {
    const pid = pids.get(engine);
    ticks[engine] = pid ? treeTicks(pid) : Number.NaN;
  }
  return ticks;
}
