/**
 * `pnpm bench:limits`: the CPU the gateway spends on limits per call, measured alone (the load
 * bench cannot resolve a few microseconds in calls of several hundred). It runs the gateway's own
 * limits stage (`CallLimits`: `admit`, then its `recorded` hook settling as a call is recorded) over calls whose key, project and
 * workload all carry limits (requests, tokens and calls at once), never refused, against:
 *   - no limits set: what every call without limits pays;
 *   - the in-process store of the all-in-one process;
 *   - the Redis store of the split gateway (set `BENCH_REDIS_URL`), 32 calls in flight: the
 *     gateway process's CPU only (Redis's own is not the gateway's). Limits this large let the
 *     replica admit most calls from what it holds (`replica-permits.ts`); a limit within 1 % of being reached
 *     is asked of Redis on every call, which the "asked every call" case measures.
 */

import { silentLogger } from "@gateway/contracts";
import { createInProcessLimits, type LimitStore } from "@gateway/limits";
import { createRedisLimits } from "@gateway/limits/redis";
import { endpointSpecs } from "@gateway/providers";
import { CallLimits } from "../../apps/gateway/src/admission.ts";
import type { CallPlan } from "../../apps/gateway/src/attempt.ts";
import { type AuthenticatedCall, newCallState } from "../../apps/gateway/src/call-state.ts";
import type { Caller } from "../../apps/gateway/src/resolve-caller.ts";

const huge = 1_000_000_000;
const limited: Caller = {
  apiKey: { id: "key_bench", orgId: "org_bench", limits: { rpm: huge } },
  project: { id: "proj_bench", orgId: "org_bench", slug: "bench", limits: { tpm: huge } },
  workload: {
    id: "wl_bench",
    projectId: "proj_bench",
    name: "default",
    captureEnabled: false,
    captureSampleRate: 0,
    routeModelId: null,
    routeTrafficPct: 0,
    limits: { concurrent: huge },
  },
};
const unlimited: Caller = {
  apiKey: { id: "key_free", orgId: "org_bench" },
  project: { id: "proj_free", orgId: "org_bench", slug: "free" },
  workload: { ...limited.workload, id: "wl_free", limits: undefined },
};
/**
 * Calls at once limited to 200, 32 in flight: the replica may hold only 2 spare slots (1 %), so
 * a rise in concurrency asks Redis. (Requests and tokens stay out of reach: at the bench's
 * pace, hundreds of thousands of calls a second, any realistic per-minute limit is reached.)
 */
const tightSlots: Caller = {
  ...limited,
  workload: { ...limited.workload, id: "wl_tight", limits: { concurrent: 200 } },
};
/**
 * A budget within 1 % of spent (never reached: the bench's calls are not priced): nothing is
 * held, every call is asked of Redis. The same path serves a requests-per-minute limit under 100
 * (at most 100 calls a minute) and a tokens limit within 1 % of its room.
 */
const budgetMicros = 1_000_000;
const nearlySpent: Caller = {
  ...limited,
  workload: {
    ...limited.workload,
    id: "wl_nearly_spent",
    limits: { concurrent: huge, budget: { micros: budgetMicros, period: "day", appliesTo: "all" } },
  },
};
const nearlySpentTotal = {
  scope: "workload" as const,
  scopeId: "wl_nearly_spent",
  period: "day" as const,
  periodStart: new Date().toISOString().slice(0, 10),
  managedMicros: budgetMicros - 5_000,
  allMicros: budgetMicros - 5_000,
};
/** The common case: one limit on one scope, nothing to settle when the call ends. */
const rpmOnly: Caller = { ...unlimited, apiKey: { ...unlimited.apiKey, limits: { rpm: huge } } };
const plan = { primary: { mode: "byo" }, fallback: null } as unknown as CallPlan;
const usage = {
  input_tokens: 900,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_creation_5m_input_tokens: 0,
  cache_creation_1h_input_tokens: 0,
  output_tokens: 120,
};

let n = 0;
async function oneCall(limits: CallLimits, caller: Caller) {
  const call = newCallState(`req_${++n}`, endpointSpecs.chat_completions, "byo");
  call.caller = caller;
  const admitted = await limits.admit(call as AuthenticatedCall, plan);
  if (!admitted.ok) throw new Error(`refused: ${JSON.stringify(admitted.refusal)}`);
  call.usage = usage;
  limits.recorded(call as AuthenticatedCall);
}

/** CPU microseconds per call over `total` calls, `inFlight` at a time. */
async function cpuMicros(
  limits: CallLimits,
  caller: Caller,
  total: number,
  inFlight: number,
): Promise<number> {
  const start = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < total) await oneCall(limits, caller);
    }),
  );
  const used = process.cpuUsage(start);
  return (used.user + used.system) / total;
}

async function measure(label: string, store: LimitStore, caller: Caller, total: number, inFlight: number) {
  const limits = new CallLimits(store);
  await cpuMicros(limits, caller, total, inFlight); // warm-up
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push(await cpuMicros(limits, caller, total, inFlight));
  console.log(
    `${label}: ${runs.map((us) => us.toFixed(2)).join(" / ")} µs of CPU per call (3 runs of ${total})`,
  );
}

const inProcess = createInProcessLimits();
await measure("no limits set", inProcess, unlimited, 500_000, 1);
await measure("in process, 1 scope, requests per minute only", inProcess, rpmOnly, 200_000, 1);
await measure("in process, 3 scopes limited", inProcess, limited, 200_000, 1);

const redisUrl = process.env.BENCH_REDIS_URL;
if (redisUrl) {
  const redis = createRedisLimits({
    url: redisUrl,
    log: silentLogger,
    timeoutMs: 1_000,
    namespace: `bench-${process.pid}`,
    instanceId: "bench",
  });
  while (redis.counting() !== "shared") await new Promise((r) => setTimeout(r, 50));
  await measure("redis, 1 scope, requests per minute only, 32 in flight", redis, rpmOnly, 20_000, 32);
  await measure("redis, 3 scopes limited, 32 in flight", redis, limited, 20_000, 32);
  await measure(
    "redis, 3 scopes limited, 200 calls at once allowed, 32 in flight",
    redis,
    tightSlots,
    20_000,
    32,
  );
  await redis.publishSpend([nearlySpentTotal]);
  await measure(
    "redis, 3 scopes limited, a budget within 1 % of spent (asked every call), 32 in flight",
    redis,
    nearlySpent,
    20_000,
    32,
  );
  // a call Redis did not answer is counted locally, which would flatter the figures
  if (redis.counting() !== "shared") throw new Error("redis stopped answering during the bench");
  await redis.close();
} else console.log("redis: skipped (set BENCH_REDIS_URL)");
