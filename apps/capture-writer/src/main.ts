import { registerConsumerMetrics } from "@gateway/bus";
import { createLogger, metricsFor } from "@gateway/contracts";
import { envOrExit, stopOnSignals } from "@gateway/engines";
import { consumerReadiness, serveProbes } from "@gateway/engines/probes";
import { startTracing } from "@gateway/tracing";
import { startCaptureWriter } from "./capture-writer.ts";
import { captureWriterDeps } from "./deps.ts";
import { parseCaptureWriterEnv } from "./env.ts";

// The capture writer as a process of its own: `pnpm --filter @gateway/capture-writer start`.
const log = createLogger("capture-writer");
const env = envOrExit(parseCaptureWriterEnv);
const { deps, close } = await captureWriterDeps(env, log);
const metrics = metricsFor(env);
if (metrics) registerConsumerMetrics(metrics, deps.bus);
// probes first: alive while it joins its group, ready once it holds partitions
const probes = await serveProbes({
  app: "capture-writer",
  metrics,
  port: env.PORT,
  host: env.HOST,
  log,
  readiness: consumerReadiness(deps.bus, deps.db),
});
// off unless OTEL_EXPORTER_OTLP_ENDPOINT is set; the SDK reads the other OTEL_* settings itself
const tracer = await startTracing("capture-writer", process.env);
await startCaptureWriter({ ...deps, tracer });
log.info("consuming", { group: "capture-writer" });
stopOnSignals(log, async () => {
  probes.close();
  await close();
  await tracer?.shutdown();
});
