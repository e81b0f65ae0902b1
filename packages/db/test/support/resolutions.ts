// Run as a process of its own (load-drizzle.test.ts): `node resolutions.ts hooked|plain`. Loads
// the whole store package, with or without `loadDrizzleQuickly`, and prints every resolution of a
// drizzle module Node made meanwhile (what was asked, by whom, and the answer), and drizzle's exports.
import * as nodeModule from "node:module";
import { loadDrizzleQuickly } from "../../src/load-drizzle.ts";

if (process.argv[2] === "hooked") loadDrizzleQuickly();
const seen: Record<string, { url: string; format: string | null | undefined }> = {};
// registered last, so it runs first and sees what the hooks under it (or Node alone) answer
nodeModule.registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (resolved.url.includes("/node_modules/drizzle-orm/"))
      seen[`${specifier} from ${context.parentURL}`] = { url: resolved.url, format: resolved.format };
    return resolved;
  },
});
await import("../../src/index.ts");
const exports: Record<string, string[]> = {};
for (const entry of ["drizzle-orm", "drizzle-orm/pg-core", "drizzle-orm/sqlite-core"])
  exports[entry] = Object.keys(await import(entry)).sort();
process.stdout.write(JSON.stringify({ seen, exports }));
