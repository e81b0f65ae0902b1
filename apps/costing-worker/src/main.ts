import { registerConsumerMetrics } from "@gateway/bus";
import { createLogger, metricsFor } from "@gateway/contracts";
import { envOrExit, stopOnSignals } from "@gateway/engines";
import { consumerReadiness, serveProbes } from "@gateway/engines/probes";
import { startTracing } from "@gateway/tracing";
import { registerCostingMetrics } from "./costing-metrics.ts";
import { startCostingWorker } from "./costing-worker.ts";
import { costingWorkerDeps } from "./deps.ts";
import { parseCostingWorkerEnv } from "./env.ts";

// The costing worker as a process of its own: `pnpm --filter @gateway/costing-worker start`.
const log = createLogger("costing-worker");
const env = envOrExit(parseCostingWorkerEnv);
const { deps, close } = await costingWorkerDeps(env, log);
const metrics = metricsFor(env);
if (metrics) {
  registerConsumerMetrics(metrics, deps.bus);
  registerCostingMetrics(metrics, deps);
}
// probes first: alive while it joins its group, ready once it holds partitions
const probes = await serveProbes({
  app: "costing-worker",
  metrics,
  port: env.PORT,
  host: env.HOST,
  log,
  readiness: consumerReadiness(deps.bus, deps.db),
});
// off unless OTEL_EXPORTER_OTLP_ENDPOINT is set; the SDK reads the other OTEL_* settings itself
const tracer = await startTracing("costing-worker", process.env);
const worker = await startCostingWorker({ ...deps, tracer });
log.info("consuming", { group: "costing-worker" });
stopOnSignals(log, async () => {
  probes.close();
  await worker.close();
  await close();
  await tracer?.shutdown();
});
