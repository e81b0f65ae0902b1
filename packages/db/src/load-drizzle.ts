import * as nodeModule from "node:module";

type Resolved = nodeModule.ResolveFnOutput;

/** Where drizzle-orm's own files are, in any node_modules layout (pnpm's store, a flat npm tree). */
const drizzleDir = "/node_modules/drizzle-orm/";

/**
 * Loads drizzle-orm's modules without Node reading its package.json over and over. Call it first
 * thing in an app's entry, then import the app dynamically: a static import is resolved before
 * any line of the entry runs.
 *
 * Why: drizzle-orm's package.json is 179 KB (447 exports), and Node's ES module loader takes it
 * apart again for every import of `drizzle-orm…` (64 in our modules) and for every one of the
 * ~300 drizzle files it loads (to read its `type`). Measured on Node 24.21 (issue 37): importing
 * drizzle-orm, `pg-core` and `sqlite-core` took ~580 ms and ~330 MB of heap, garbage at once;
 * with this hook ~45 ms and ~10 MB. For the all-in-one process: ready in ~450 ms instead of
 * ~1,050, and ~125 MB resident after start instead of ~150-170 (the pages V8 grew into during the
 * churn and kept). Drizzle's CommonJS build was tried too: Node's CommonJS loader keeps a copy of
 * that package.json per file (+20 MB).
 *
 * Without `module.registerHooks` (Node before 22.15) this does nothing and the modules load as
 * before; every other module resolves as always.
 */
export function loadDrizzleQuickly(): void {
  const bare = new Map<string, Resolved>();
  nodeModule.registerHooks?.({
    resolve(specifier, context, nextResolve) {
      const parent = context.parentURL;
      if (!parent) return nextResolve(specifier, context);
      if (specifier === "drizzle-orm" || specifier.startsWith("drizzle-orm/")) {
        // Node resolves a package name from the importer's directory alone: the same answer for
        // every module of that directory, worked out once.
        const key = `${specifier} ${parent.slice(0, parent.lastIndexOf("/"))} ${context.conditions.join()}`;
        const known = bare.get(key);
        if (known) return known;
        const resolved = nextResolve(specifier, context);
        bare.set(key, { ...resolved, shortCircuit: true });
        return resolved;
      }
      if (isRelativeModuleWithinDrizzle(specifier, parent))
        // what Node concludes itself: the package is "type": "module", and an ES module's
        // relative import names its file exactly
        return { url: new URL(specifier, parent).href, format: "module", shortCircuit: true };
      return nextResolve(specifier, context);
    },
  });
}

/** A relative import of a `.js` file by one of drizzle's ES modules (its CommonJS files are `.cjs`). */
function isRelativeModuleWithinDrizzle(specifier: string, parent: string): boolean {
  return (
    parent.includes(drizzleDir) &&
    parent.endsWith(".js") &&
    specifier.endsWith(".js") &&
    (specifier.startsWith("./") || specifier.startsWith("../"))
  );
}
