import { registerConsumerMetrics } from "@gateway/bus";
import { startCaptureWriter } from "@gateway/capture-writer";
import { captureWriterDeps, parseCaptureWriterEnv } from "@gateway/capture-writer/own-process";
import { consumerReadiness } from "@gateway/engines/consumer-readiness";
import { runConsumerApp } from "@gateway/runtime/consumer-app";

// `pnpm bench:consumers`' capture writer of one object per call, the layout before segments: the
// app's own main (apps/capture-writer/src/main.ts) with segments of one capture each, written
// side by side a wave at a time as that layout wrote its objects. Only the bench runs it.
await runConsumerApp({
  name: "capture-writer",
  parseEnv: parseCaptureWriterEnv,
  async open(env, log, metrics) {
    const { deps, close } = await captureWriterDeps(env, log);
    if (metrics) registerConsumerMetrics(metrics, deps.bus);
    return {
      readiness: consumerReadiness(deps.bus, deps.db),
      start: (tracer) => startCaptureWriter({ ...deps, tracer, segmentBytes: 1 }),
      close,
    };
  },
});
