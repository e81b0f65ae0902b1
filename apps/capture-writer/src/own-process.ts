import { registerConsumerMetrics } from "@gateway/bus";
import { consumerReadiness } from "@gateway/engines/consumer-readiness";
import { runConsumerApp } from "@gateway/runtime/consumer-app";
import { type CaptureWriterDeps, startCaptureWriter } from "./capture-writer.ts";
import { captureWriterDeps } from "./deps.ts";
import { parseCaptureWriterEnv } from "./env.ts";

/**
 * The capture writer as a process of its own, on the split deployment's engines (main.ts; the
 * bench's writer of one object per call passes `segmentBytes: 1`). Apart from the package's index:
 * the all-in-one process imports the index, and must not load the engines' drivers
 * (import-closure.test.ts).
 */
export function runCaptureWriterProcess(options: Pick<CaptureWriterDeps, "segmentBytes"> = {}) {
  return runConsumerApp({
    name: "capture-writer",
    parseEnv: parseCaptureWriterEnv,
    async open(env, log, metrics) {
      const { deps, close } = await captureWriterDeps(env, log);
      if (metrics) registerConsumerMetrics(metrics, deps.bus);
      return {
        readiness: consumerReadiness(deps.bus, deps.db),
        start: (tracer) => startCaptureWriter({ ...deps, ...options, tracer }),
        close,
      };
    },
  });
}
