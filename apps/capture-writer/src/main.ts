import { registerConsumerMetrics } from "@gateway/bus";
import { consumerReadiness } from "@gateway/engines/consumer-readiness";
import { runConsumerApp } from "@gateway/runtime/consumer-app";
import { startCaptureWriter } from "./capture-writer.ts";
import { captureWriterDeps } from "./deps.ts";
import { parseCaptureWriterEnv } from "./env.ts";

// The capture writer as a process of its own: `pnpm --filter @gateway/capture-writer start`.
await runConsumerApp({
  name: "capture-writer",
  parseEnv: parseCaptureWriterEnv,
  async open(env, log, metrics) {
    const { deps, close } = await captureWriterDeps(env, log);
    if (metrics) registerConsumerMetrics(metrics, deps.bus);
    return {
      readiness: consumerReadiness(deps.bus, deps.db),
      start: (tracer) => startCaptureWriter({ ...deps, tracer }),
      close,
    };
  },
});
