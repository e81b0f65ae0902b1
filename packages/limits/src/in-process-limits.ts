import type { LimitStore } from "./limit-store.ts";
import { localCounters } from "./local-counters.ts";

/** The all-in-one process's limits: it is the only process, so its own counts are the whole count. */
export function createInProcessLimits(now: () => number = Date.now): LimitStore {
  const counters = localCounters(now);
  return {
    admit: (request) => Promise.resolve(counters.admit(request)),
    settle: (lease, tokens) => counters.settle(lease, tokens),
    publishSpend: (totals) => Promise.resolve(counters.publishSpend(totals)),
    use: (scopes) => Promise.resolve(counters.use(scopes)),
    counting: () => "in_process",
    close: () => Promise.resolve(),
  };
}
