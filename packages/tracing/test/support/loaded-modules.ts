import { registerHooks } from "node:module";

// Run as a process of its own: imports the modules named on the command line and starts tracing
// with this process's env, then prints whether tracing is on and every OpenTelemetry module
// that was loaded. Everything is imported after the hook is in place, so nothing escapes it.
const loaded: string[] = [];
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    loaded.push(resolved.url);
    return resolved;
  },
});
for (const entry of process.argv.slice(2)) await import(entry);
const { startTracing } = await import("../../src/index.ts");
const tracer = await startTracing("probe", process.env);
await tracer?.shutdown();
process.stdout.write(
  JSON.stringify({
    on: tracer !== null,
    otel: loaded.filter((url) => url.includes("/node_modules/@opentelemetry/")),
  }),
);
