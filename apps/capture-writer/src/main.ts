import { runCaptureWriterProcess } from "./own-process.ts";

// The capture writer as a process of its own: `pnpm --filter @gateway/capture-writer start`.
await runCaptureWriterProcess();
