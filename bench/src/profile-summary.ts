/**
 * Summarises a V8 `.cpuprofile` over chosen time windows: top self-time functions, time per code
 * area (workspace package, npm package, node core), and time per owning app of the workspace.
 */
import { readFileSync } from "node:fs";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Monotonic microseconds, the clock of both `process.hrtime` and V8 profile timestamps on Linux. */
export type Window = [startUs: number, endUs: number];

export interface Share {
  name: string;
  ms: number;
  pct: number;
}

export interface ProfileSummary {
  /** Sampled time inside the windows, idle excluded. */
  busyMs: number;
  idleMs: number;
  /** False when no sample fell inside the windows and the whole profile was used instead. */
  windowed: boolean;
  functions: (Share & { area: string })[];
  areasSelf: Share[];
  /** Areas with a frame anywhere in the sampled stack (those at the bottom of every stack left out). */
  areasOnStack: Share[];
  /**
   * Which part of the system the work is for: the nearest `apps/*` frame above the sample, else the
   * nearest `packages/*` frame, else the outermost library on the stack.
   */
  owners: Share[];
}

const specialFrames = new Set(["(garbage collector)", "(program)", "(idle)", "(root)"]);
// Event-loop plumbing sits under nearly every sample, so "on stack" says nothing about it.
const everywhere = new Set(["(root)", "(native)", "node core", "(program)", "(garbage collector)"]);
const noOwner = "(node core and native only: sockets, files, timers)";

/** The code area of a frame on its own; wasm and other frames without a place are decided by their caller. */
function ownArea(frame: CallFrame): string | null {
  const { url, functionName } = frame;
  if (url === "" && specialFrames.has(functionName)) return functionName;
  if (url.startsWith("wasm://") || functionName === "wasm-to-js" || functionName === "js-to-wasm")
    return null;
  if (url === "") return "(native)";
  if (url.startsWith("node:")) return "node core";
  const dependency = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dependency) return dependency[1]!;
  const workspace = /\/(apps|packages|bench)\/([^/]+)\//.exec(url);
  if (workspace) return `${workspace[1]}/${workspace[2]}`;
  return "other";
}

function shortUrl(url: string): string {
  const dependency = /.*\/node_modules\/(.*)$/.exec(url);
  if (dependency) return dependency[1]!;
  const workspace = /\/((?:apps|packages|bench)\/.*)$/.exec(url);
  return workspace ? workspace[1]! : url;
}

function shares(totals: Map<string, number>, busyMs: number, limit: number): Share[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, ms]) => ({ name, ms, pct: busyMs > 0 ? (100 * ms) / busyMs : 0 }));
}

function add(totals: Map<string, number>, key: string, ms: number) {
  totals.set(key, (totals.get(key) ?? 0) + ms);
}

export function summariseProfile(path: string, windows: Window[], limit = 20): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

  const stackOf = (id: number): ProfileNode[] => {
    const stack: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const node = byId.get(at);
      if (node) stack.push(node);
    }
    return stack;
  };
  // A wasm frame belongs to whoever called into it: undici's HTTP parser, say.
  const areaOf = (stack: ProfileNode[], from: number): string => {
    const own = ownArea(stack[from]!.callFrame);
    if (own !== null) return own;
    for (let i = from + 1; i < stack.length; i++) {
      const area = ownArea(stack[i]!.callFrame);
      // Builtins between the caller and the wasm (trampolines, promise jobs) say nothing of the caller.
      if (area !== null && area !== "(native)") return `${area} (wasm)`;
    }
    return "wasm";
  };

  // Each sample stands for the interval until the next one.
  const timestamps: number[] = [];
  let now = profile.startTime;
  for (const delta of profile.timeDeltas) {
    now += delta;
    timestamps.push(now);
  }
  const inWindow = (t: number) => windows.some(([start, end]) => t >= start && t <= end);
  const windowed = timestamps.some(inWindow);

  const functions = new Map<string, number>();
  const functionArea = new Map<string, string>();
  const areasSelf = new Map<string, number>();
  const areasOnStack = new Map<string, number>();
  const owners = new Map<string, number>();
  let busyMs = 0;
  let idleMs = 0;
  for (let i = 0; i < profile.samples.length - 1; i++) {
    if (windowed && !inWindow(timestamps[i]!)) continue;
    const stack = stackOf(profile.samples[i]!);
    const leaf = stack[0];
    if (!leaf) continue;
    const ms = (timestamps[i + 1]! - timestamps[i]!) / 1000;
    const area = areaOf(stack, 0);
    if (area === "(idle)") {
      idleMs += ms;
      continue;
    }
    busyMs += ms;

    const { functionName, url, lineNumber } = leaf.callFrame;
    const key = url ? `${functionName || "(anonymous)"} ${shortUrl(url)}:${lineNumber + 1}` : functionName;
    add(functions, key, ms);
    functionArea.set(key, area);
    add(areasSelf, area, ms);

    const onStack = new Set(stack.map((_, at) => areaOf(stack, at)));
    for (const stackArea of onStack) if (!everywhere.has(stackArea)) add(areasOnStack, stackArea, ms);

    // Continuations after an await have lost their caller's frames; the outermost library left on
    // the stack (drizzle for database work, undici for upstream responses) still says whose work it is.
    const areas = [...onStack];
    const library = areas
      .map((a) => a.replace(/ \(wasm\)$/, ""))
      .findLast((a) => !everywhere.has(a) && !a.startsWith("apps/") && !a.startsWith("packages/"));
    const owner =
      areas.find((a) => a.startsWith("apps/")) ??
      areas.find((a) => a.startsWith("packages/")) ??
      (library ? `no app frame, under ${library}` : noOwner);
    add(owners, specialFrames.has(area) ? area : owner, ms);
  }

  return {
    busyMs,
    idleMs,
    windowed,
    functions: shares(functions, busyMs, limit).map((share) => ({
      ...share,
      area: functionArea.get(share.name) ?? "",
    })),
    areasSelf: shares(areasSelf, busyMs, limit),
    areasOnStack: shares(areasOnStack, busyMs, limit),
    owners: shares(owners, busyMs, limit),
  };
}
