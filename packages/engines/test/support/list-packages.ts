import { writeSync } from "node:fs";
import { registerHooks } from "node:module";

// Loaded with `--import` before an app's main: records every package the process resolves from
// node_modules, and prints them as JSON when the process exits (the main, given no environment,
// exits once every module it imports statically has been loaded and run).
const packages = new Set<string>();
const inNodeModules = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//;
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    const name = inNodeModules.exec(resolved.url)?.[1];
    if (name) packages.add(name);
    return resolved;
  },
});
process.on("exit", () => writeSync(1, `${JSON.stringify([...packages].sort())}\n`));
