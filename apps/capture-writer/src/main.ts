import { createLogger } from "@gateway/contracts";
import { envOrExit, stopOnSignals } from "@gateway/engines";
import { startCaptureWriter } from "./capture-writer.ts";
import { captureWriterDeps } from "./deps.ts";
import { parseCaptureWriterEnv } from "./env.ts";

// The capture writer as a process of its own: `pnpm --filter @gateway/capture-writer start`.
const log = createLogger("capture-writer");
const env = envOrExit(parseCaptureWriterEnv);
const { deps, close } = await captureWriterDeps(env, log);
await startCaptureWriter(deps);
log.info("consuming", { group: "capture-writer" });
stopOnSignals(log, close);
