import { randomBytes } from "node:crypto";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

/**
 * A memory cgroup of its own with a hard limit, as a container runtime sets one: cgroup v1's
 * memory controller (`memory.limit_in_bytes`, and `memory.memsw.limit_in_bytes` so that swap is
 * no way around it) or cgroup v2's (`memory.max`, `memory.swap.max`). Needs a writable hierarchy
 * (root, or a delegated one).
 */
export interface MemoryCgroup {
  path: string;
  version: 1 | 2;
  /** `command` started inside the cgroup: a shell moves itself in, then becomes the command. */
  wrap(command: string[]): { command: string; args: string[] };
  /** How often the kernel's OOM killer killed a process of the cgroup. */
  oomKills(): number;
  /** The cgroup's peak memory use, bytes (the kernel's high-water mark). */
  peakBytes(): number;
  /** Times its use reached the limit (v1's `memory.failcnt`, v2's `max` events): reclaim, not kills. */
  limitHits(): number;
  /** Removes it; its processes must have exited. */
  remove(): void;
}

const v1Root = "/sys/fs/cgroup/memory";
const v2Root = "/sys/fs/cgroup";

const writable = (path: string) => {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

/** The fields of a `name value` file (memory.oom_control, memory.events). */
const fieldsOf = (file: string) =>
  new Map(
    readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => line.split(" ") as [string, string]),
  );

const isV2 = () =>
  existsSync(join(v2Root, "cgroup.controllers")) &&
  readFileSync(join(v2Root, "cgroup.controllers"), "utf8").split(/\s+/).includes("memory");

/** Why no memory cgroup can be made here, or null when one can; changes nothing. */
export function memoryCgroupUnavailable(): string | null {
  if (isV2())
    return writable(join(v2Root, "cgroup.subtree_control"))
      ? null
      : `${v2Root} (cgroup v2) is not writable by this user`;
  if (!existsSync(join(v1Root, "memory.limit_in_bytes")))
    return `no memory controller at ${v1Root} (cgroup v1) nor in ${v2Root} (cgroup v2)`;
  return writable(v1Root) ? null : `${v1Root} (cgroup v1) is not writable by this user`;
}

/** A new memory cgroup limited to `limitBytes` (where `memoryCgroupUnavailable` says one can be made). */
export function makeMemoryCgroup(limitBytes: number): MemoryCgroup {
  const name = `gateway-test-${randomBytes(4).toString("hex")}`;
  if (isV2()) {
    if (!readFileSync(join(v2Root, "cgroup.subtree_control"), "utf8").includes("memory"))
      writeFileSync(join(v2Root, "cgroup.subtree_control"), "+memory");
    const path = join(v2Root, name);
    mkdirSync(path);
    writeFileSync(join(path, "memory.max"), String(limitBytes));
    if (existsSync(join(path, "memory.swap.max"))) writeFileSync(join(path, "memory.swap.max"), "0");
    return cgroup(path, 2, {
      oomKills: () => Number(fieldsOf(join(path, "memory.events")).get("oom_kill") ?? 0),
      peakBytes: () => Number(readFileSync(join(path, "memory.peak"), "utf8")),
      limitHits: () => Number(fieldsOf(join(path, "memory.events")).get("max") ?? 0),
    });
  }
  const path = join(v1Root, name);
  mkdirSync(path);
  writeFileSync(join(path, "memory.limit_in_bytes"), String(limitBytes));
  // memory and swap together: without it, the kernel swaps out what passes the limit
  if (existsSync(join(path, "memory.memsw.limit_in_bytes")))
    writeFileSync(join(path, "memory.memsw.limit_in_bytes"), String(limitBytes));
  return cgroup(path, 1, {
    // `oom_kill` is counted by kernels from 4.13; an older one says only whether it is under OOM now
    oomKills: () => {
      const control = fieldsOf(join(path, "memory.oom_control"));
      return Number(control.get("oom_kill") ?? control.get("under_oom") ?? 0);
    },
    peakBytes: () => Number(readFileSync(join(path, "memory.max_usage_in_bytes"), "utf8")),
    limitHits: () => Number(readFileSync(join(path, "memory.failcnt"), "utf8")),
  });
}

function cgroup(
  path: string,
  version: 1 | 2,
  read: Pick<MemoryCgroup, "oomKills" | "peakBytes" | "limitHits">,
): MemoryCgroup {
  return {
    path,
    version,
    ...read,
    wrap: (command) => ({
      command: "sh",
      args: ["-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', path, ...command],
    }),
    remove: () => rmdirSync(path),
  };
}
