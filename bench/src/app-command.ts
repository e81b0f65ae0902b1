import { join } from "node:path";
import { readStartScript } from "@gateway/testkit";

/**
 * An app's own `start` script (`[NAME=value ...] node <flags> src/main.ts`): the environment it
 * sets, and its node arguments with `extra` flags before the entry and the entry made relative to
 * the repo root. The bench runs each app exactly as `pnpm start` does, runtime flags and
 * environment included.
 */
export function appCommand(
  rootDir: string,
  app: string,
  extra: string[] = [],
): { env: Record<string, string>; args: string[] } {
  const { env, command } = readStartScript(join(rootDir, "apps", app, "package.json"));
  const [node, ...args] = command;
  const entry = args.pop();
  if (node !== "node" || !entry?.endsWith(".ts") || args.some((a) => !a.startsWith("--"))) {
    throw new Error(
      `apps/${app}: expected a start script of the form "[NAME=value ...] node <flags> <entry>.ts"`,
    );
  }
  return { env, args: [...args, ...extra, join("apps", app, entry)] };
}

/** The bench's own environment without any GATEWAY_* its shell holds, plus `settings`: what a user gives an app. */
export function appEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith("GATEWAY_")) env[name] = value;
  return { ...env, ...settings };
}
