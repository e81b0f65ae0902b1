/**
 * The console's reads over a million calls: the call log's first page (bare, and under each
 * filter), a page deep in the log, one call with its provenance, and the overview's time series
 * in each window, on SQLite (the embedded default) and on PostgreSQL (`infra/postgres.sh start`).
 *
 *   pnpm bench:console     # BENCH_CALLS=1000000, BENCH_STORE=both|sqlite|postgres; BENCH_POSTGRES_URL
 *
 * Per store: the same throwaway store and fill as `pnpm bench:reports` (calls spread over the 30
 * days before now), the rollups and latency histograms built from them, then the functions the
 * control plane's routes call, each answer turned to JSON as the route sends it, timed warm.
 */

import { loadavg } from "node:os";
import {
  type CallLogFilter,
  callDetail,
  callLogPage,
  callTimeseries,
  queryRows,
  rebuildRollups,
} from "@gateway/db";
import { sql } from "drizzle-orm";
import { type BenchStore, type FillPlan, measureOnEachStore } from "./bench-store.ts";
import { openPostgresBench } from "./postgres-store.ts";
import { openSqliteBench } from "./sqlite-store.ts";
import { storeTable, type Timing, timed } from "./timing.ts";

const total = Number(process.env.BENCH_CALLS ?? 1_000_000);
const chunk = 1_000_000;
const hourMs = 3_600_000;
/** The machine is shared: its load when the bench started goes with the figures. */
const loadBefore = loadavg()
  .map((n) => n.toFixed(2))
  .join(" ");
const dayMs = 24 * hourMs;

interface StoreResult {
  histogramRows: number;
  timings: Map<string, Timing>;
}

/** The query as the route runs it, its answer serialised as the route sends it. */
const asJson = (run: () => Promise<unknown>) => async () => JSON.stringify(await run());

async function measure(store: BenchStore, projectId: string): Promise<StoreResult> {
  const { db } = store;
  for (let from = 1; from <= total; from += chunk) await store.fill(from, Math.min(total, from + chunk - 1));
  process.stdout.write(`  ${store.name}: ${total} calls filled\n`);
  await rebuildRollups(db);
  await store.settle();
  const [histogram] = await queryRows<{ n: unknown }>(db, sql`select count(*) as n from call_latency_hourly`);
  const now = Date.now();
  const page = (filter: Omit<CallLogFilter, "projectId">) => () =>
    callLogPage(db, { projectId, ...filter }, null, 51);
  const { last } = await callLogPage(db, { projectId }, null, 51);
  const deep = { receivedAt: new Date(now - 15 * dayMs), requestId: "req_999999999999" };
  const series = (length: number, step: number, groupBy: "model" | "workload" | null) => () =>
    callTimeseries(db, { projectId, start: new Date(now - length), end: new Date(now) }, step, groupBy);
  const queries: [string, () => Promise<unknown>][] = [
    ["call log, first page (50)", page({})],
    ["call log, next page", () => callLogPage(db, { projectId }, last, 51)],
    ["call log, a page 15 days back", () => callLogPage(db, { projectId }, deep, 51)],
    ["call log, workload_id", page({ workloadId: "usp_w3" })],
    ["call log, model", page({ model: "model-2" })],
    ["call log, status=5xx (3 %)", page({ status: { from: 500, to: 599 } })],
    ["call log, status=error", page({ status: "error" })],
    ["call log, route=fallback (2 %)", page({ route: "fallback" })],
    ["call log, status=404 (none)", page({ status: { code: 404 } })],
    [
      "call log, one day a week back",
      page({ from: new Date(now - 8 * dayMs), to: new Date(now - 7 * dayMs) }),
    ],
    ["call log, request_id", page({ requestId: "req_000000500000" })],
    ["one call with its provenance", () => callDetail(db, projectId, "req_000000500001")],
    ["timeseries hour (1m slices)", series(hourMs, 60_000, null)],
    ["timeseries day (1h)", series(dayMs, hourMs, null)],
    ["timeseries day by model", series(dayMs, hourMs, "model")],
    ["timeseries week (6h)", series(7 * dayMs, 6 * hourMs, null)],
    ["timeseries week by workload", series(7 * dayMs, 6 * hourMs, "workload")],
    ["timeseries 30d (1d)", series(30 * dayMs, dayMs, null)],
    ["timeseries 30d by model", series(30 * dayMs, dayMs, "model")],
  ];
  const timings = new Map<string, Timing>();
  for (const [label, run] of queries) timings.set(label, await timed(asJson(run)));
  return { histogramRows: Number(histogram?.n), timings };
}

const plan: FillPlan = { total, since: new Date(Date.now() - 30 * dayMs), projectId: "proj_bench" };
const results = await measureOnEachStore(
  plan,
  { sqlite: openSqliteBench, postgres: openPostgresBench },
  measure,
);

process.stdout.write(
  storeTable(
    `${total} calls over 30 days (load average before: ${loadBefore})`,
    "query (answer as JSON), median of 5 warm runs (min-max)",
    results,
    [["latency histogram rows (1 h, 6 h and 24 h)", (r) => String(r.histogramRows)]],
  ),
);
