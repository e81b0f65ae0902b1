import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The node arguments of an app's own `start` script (`node <flags> src/main.ts`), with `extra`
 * flags before the entry and the entry made relative to the repo root: the bench runs each app
 * exactly as `pnpm start` does, runtime flags included.
 */
export function appNodeArgs(rootDir: string, app: string, extra: string[] = []): string[] {
  const manifest = JSON.parse(readFileSync(join(rootDir, "apps", app, "package.json"), "utf8")) as {
    scripts?: { start?: string };
  };
  const [command, ...args] = (manifest.scripts?.start ?? "").trim().split(/\s+/);
  const entry = args.pop();
  if (command !== "node" || !entry?.endsWith(".ts") || args.some((a) => !a.startsWith("--"))) {
    throw new Error(`apps/${app}: expected a start script of the form "node <flags> <entry>.ts"`);
  }
  return [...args, ...extra, join("apps", app, entry)];
}

/** The bench's own environment without any GATEWAY_* its shell holds, plus `settings`: what a user gives an app. */
export function appEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith("GATEWAY_")) env[name] = value;
  return { ...env, ...settings };
}
