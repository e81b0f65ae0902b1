import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { repoRoot } from "./processes.ts";

// docker-compose.yml and what it builds on (the Dockerfile, infra/distributed.env), read the way
// compose reads them, for the tests that keep them honest where no Docker engine runs.

export interface Service {
  image?: string;
  build?: { context: string; target: string };
  profiles?: string[];
  restart?: string;
  env_file?: string;
  command?: string | string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  stop_grace_period?: string;
}

export const readRepoFile = (path: string) => readFileSync(`${repoRoot}${path}`, "utf8");

export const compose = parse(readRepoFile("docker-compose.yml"), { merge: true }) as {
  services: Record<string, Service>;
};

export function service(name: string): Service {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
}

/** A volume of a service: `source:target[:mode]`, or a bare `target` (an anonymous volume). */
export interface Mount {
  kind: "anonymous" | "named" | "bind";
  source?: string;
  target: string;
}

export function mounts(s: Service): Mount[] {
  return (s.volumes ?? []).map((v) => {
    const [first, second] = v.split(":") as [string, string | undefined];
    if (second === undefined) return { kind: "anonymous", target: first };
    return { kind: /^[./]/.test(first) ? "bind" : "named", source: first, target: second };
  });
}

/** KEY=value lines of an env file, as compose's env_file reads them. */
function envFile(path: string): Record<string, string> {
  return Object.fromEntries(
    readRepoFile(path)
      .split("\n")
      .filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

interface Stage {
  from: string;
  env: Record<string, string>;
  /** Its CMD, in the exec (JSON array) form; none when it sets no CMD of its own. */
  cmd?: string[];
}

/** The Dockerfile's stages by name: the stage each starts from, the ENV it sets and its CMD. */
const stages = new Map<string, Stage>();
{
  let current: Stage | undefined;
  for (const line of readRepoFile("Dockerfile").replace(/\\\n/g, " ").split("\n")) {
    const from = /^FROM\s+(\S+)\s+AS\s+(\S+)/i.exec(line);
    if (from) {
      current = { from: from[1]!, env: {} };
      stages.set(from[2]!, current);
    } else if (/^ENV\s/i.test(line) && current) {
      for (const pair of line.trim().split(/\s+/).slice(1)) {
        // the legacy `ENV KEY value` form would be misread here: the Dockerfile does not use it
        if (!pair.includes("=")) throw new Error(`Dockerfile: ENV without KEY=value: ${line}`);
        current.env[pair.slice(0, pair.indexOf("="))] = pair.slice(pair.indexOf("=") + 1);
      }
    } else if (/^CMD\s/i.test(line) && current) {
      current.cmd = JSON.parse(line.trim().slice(4)) as string[];
    }
  }
}

export const dockerfileTargets = new Set(stages.keys());

/** What the image of `target` sets with ENV, its own stage's over those it starts from. */
export function imageEnv(target: string): Record<string, string> {
  const stage = stages.get(target);
  return stage ? { ...imageEnv(stage.from), ...stage.env } : {};
}

/** The command the image of `target` starts (its own stage's CMD, or the one it inherits). */
export function imageCommand(target: string): string[] | undefined {
  const stage = stages.get(target);
  return stage ? (stage.cmd ?? imageCommand(stage.from)) : undefined;
}

/** `${NAME:-default}` as compose would expand it with NAME unset. */
const expand = (v: string) => v.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, "$1");

/** The environment a service's container starts with: its image's, then env_file, then environment. */
export function containerEnv(name: string): Record<string, string> {
  const s = service(name);
  return {
    ...(s.build ? imageEnv(s.build.target) : {}),
    ...(s.env_file ? envFile(s.env_file) : {}),
    ...Object.fromEntries(Object.entries(s.environment ?? {}).map(([k, v]) => [k, expand(String(v))])),
  };
}

/** compose's durations as this file writes them (`45s`), in milliseconds. */
export function durationMs(value: string | undefined): number {
  const m = /^(\d+)s$/.exec(value ?? "");
  if (!m) throw new Error(`not a duration in seconds: ${value}`);
  return Number(m[1]) * 1000;
}
