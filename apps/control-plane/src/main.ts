import { loadDrizzleQuickly } from "@gateway/db/load-drizzle";

// The process: `pnpm start`, or `node src/main.ts`. Drizzle's modules loaded without Node's
// per-file package.json lookups (load-drizzle.ts says why), then the app, imported only now so
// that the hook is in place for it.
loadDrizzleQuickly();
await import("./run-process.ts");
