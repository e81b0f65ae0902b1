import { registerConsumerMetrics } from "@gateway/bus";
import { consumerReadiness } from "@gateway/engines/consumer-readiness";
import { runConsumerApp } from "@gateway/runtime/consumer-app";
import { registerCostingMetrics } from "./costing-metrics.ts";
import { startCostingWorker } from "./costing-worker.ts";
import { costingWorkerDeps } from "./deps.ts";
import { parseCostingWorkerEnv } from "./env.ts";

// The costing worker as a process of its own: `pnpm --filter @gateway/costing-worker start`.
await runConsumerApp({
  name: "costing-worker",
  parseEnv: parseCostingWorkerEnv,
  async open(env, log, metrics) {
    const { deps, close } = await costingWorkerDeps(env, log);
    if (metrics) {
      registerConsumerMetrics(metrics, deps.bus);
      registerCostingMetrics(metrics, deps);
    }
    return {
      readiness: consumerReadiness(deps.bus, deps.db),
      start: (tracer) => startCostingWorker({ ...deps, tracer }),
      close,
    };
  },
});
