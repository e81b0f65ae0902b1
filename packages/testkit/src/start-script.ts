import { readFileSync } from "node:fs";

/**
 * The `start` script of the package.json at `path` (`[NAME=value ...] node <flags> <entry>`): the
 * environment it sets before its command, and the command's words. The bench runs each app as
 * this says, and the images are checked against it.
 */
export function readStartScript(path: string): { env: Record<string, string>; command: string[] } {
  const manifest = JSON.parse(readFileSync(path, "utf8")) as { scripts?: { start?: string } };
  const words = (manifest.scripts?.start ?? "").trim().split(/\s+/);
  const env: Record<string, string> = {};
  for (let m = assignment.exec(words[0] ?? ""); m; m = assignment.exec(words[0] ?? "")) {
    env[m[1]!] = m[2]!;
    words.shift();
  }
  return { env, command: words };
}

const assignment = /^([A-Z_][A-Z0-9_]*)=(.*)$/;
