import { registerHooks } from "node:module";

// Run as a process of its own: imports the modules named on the command line and starts tracing
// with this process's env, then prints whether tracing is on and which OpenTelemetry modules were
// loaded: those of the SDK (anything but the API), and any our own code asked for. Everything is
// imported after the hook is in place, so nothing escapes it.
const otel = "/node_modules/@opentelemetry/";
const sdk = new Set<string>();
const fromOurs = new Set<string>();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (resolved.url.includes(otel)) {
      if (!resolved.url.includes(`${otel}api/`)) sdk.add(resolved.url);
      if (!context.parentURL?.includes("/node_modules/"))
        fromOurs.add(`${context.parentURL} -> ${specifier}`);
    }
    return resolved;
  },
});
for (const entry of process.argv.slice(2)) await import(entry);
const { startTracing } = await import("../../src/index.ts");
const tracer = await startTracing("probe", process.env);
await tracer?.shutdown();
process.stdout.write(JSON.stringify({ on: tracer !== null, sdk: [...sdk], fromOurs: [...fromOurs] }));
