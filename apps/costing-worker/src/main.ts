import { createLogger } from "@gateway/contracts";
import { envOrExit, stopOnSignals } from "@gateway/engines";
import { startCostingWorker } from "./costing-worker.ts";
import { costingWorkerDeps } from "./deps.ts";
import { parseCostingWorkerEnv } from "./env.ts";

// The costing worker as a process of its own: `pnpm --filter @gateway/costing-worker start`.
const log = createLogger("costing-worker");
const env = envOrExit(parseCostingWorkerEnv);
const { deps, close } = await costingWorkerDeps(env, log);
await startCostingWorker(deps);
log.info("consuming", { group: "costing-worker" });
stopOnSignals(log, close);
