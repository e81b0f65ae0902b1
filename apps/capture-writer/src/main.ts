import { loadDrizzleQuickly } from "@gateway/db/load-drizzle";

// The capture writer as a process of its own: `pnpm --filter @gateway/capture-writer start`.
// Drizzle's modules loaded without Node's per-file package.json lookups (load-drizzle.ts says
// why), then the app, imported only now so that the hook is in place for it.
loadDrizzleQuickly();
const { runCaptureWriterProcess } = await import("./own-process.ts");
await runCaptureWriterProcess();
