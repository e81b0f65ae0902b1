/**
 * `pnpm bench:metrics`: the CPU the gateway's per-call metrics take, measured alone. The load
 * bench (`BENCH_METRICS=false` against the default) cannot resolve a few microseconds in calls of
 * several hundred, so this runs the very hook the gateway calls when a call ends over a mix
 * of calls (three endpoints, JSON and streams, two status classes), and a scrape of the result.
 */
import { createInProcessBus } from "@gateway/bus";
import { createInProcessCache } from "@gateway/cache";
import { endpointSpecs } from "@gateway/providers";
import { createMetrics } from "@gateway/runtime";
import { newCallState } from "../../apps/gateway/src/call-state.ts";
import { gatewayMetrics } from "../../apps/gateway/src/metrics.ts";

const metrics = createMetrics();
const measure = gatewayMetrics(metrics, {
  bus: createInProcessBus(),
  cache: createInProcessCache(),
  limits: null,
  inFlight: () => 0,
}).ended!;
const calls = (["messages", "chat_completions", "responses"] as const).flatMap((endpoint) =>
  [false, true].flatMap((stream) =>
    [200, 429].map((status) => {
      const call = newCallState("req", endpointSpecs[endpoint], "byo");
      Object.assign(call, { stream, status, firstByteMs: 120, endedAt: call.startedAt + 900 });
      return call;
    }),
  ),
);

/** CPU microseconds per run of `work`, over `n` runs. */
function cpuMicros(n: number, work: (i: number) => void): number {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) work(i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

const n = 1_000_000;
cpuMicros(n, (i) => measure(calls[i % calls.length]!)); // warm-up: the optimiser, the label maps
const perCall = [1, 2, 3].map(() => cpuMicros(n, (i) => measure(calls[i % calls.length]!)));
const scrapeStart = process.cpuUsage();
for (let i = 0; i < 100; i++) await metrics.registry.metrics();
const scrapeUsed = process.cpuUsage(scrapeStart);
console.log(
  `per call: ${perCall.map((us) => us.toFixed(2)).join(" / ")} µs of CPU (3 runs of ${n} calls); ` +
    `per scrape: ${((scrapeUsed.user + scrapeUsed.system) / 100 / 1000).toFixed(2)} ms`,
);
