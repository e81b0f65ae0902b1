/**
 * The 30-day usage summary and the other report queries over ten million calls, on SQLite (the
 * embedded default) and on PostgreSQL (`infra/postgres.sh start`), in one table.
 *
 *   pnpm bench:reports     # BENCH_CALLS=10000000, BENCH_STORE=both|sqlite|postgres; BENCH_POSTGRES_URL
 *
 * Per store: a throwaway database (dropped, or its temp dir removed, at the end), `calls` filled in
 * SQL by chunks of one statement each (never row by row) spread over 30 days, the same on both
 * stores, the hourly rollups built from them, then the report functions the control plane calls,
 * timed warm, as the median of several runs.
 */
import { providerHealth, queryRows, rebuildRollups, usageSummaryGroups, workloadStatuses } from "@gateway/db";
import { sql } from "drizzle-orm";
import { type BenchStore, type FillPlan, measureOnEachStore } from "./bench-store.ts";
import { openPostgresBench } from "./postgres-store.ts";
import { openSqliteBench } from "./sqlite-store.ts";
import { storeTable, type Timing, timed } from "./timing.ts";

const total = Number(process.env.BENCH_CALLS ?? 10_000_000);
const chunk = 1_000_000;

interface StoreResult {
  fillSeconds: number;
  rollupSeconds: number;
  rollupRows: number;
  sizeBytes: number;
  timings: Map<string, Timing>;
}

async function measure(store: BenchStore, projectId: string): Promise<StoreResult> {
  const { db } = store;
  const started = performance.now();
  for (let from = 1; from <= total; from += chunk) {
    const to = Math.min(total, from + chunk - 1);
    await store.fill(from, to);
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(`  ${store.name}: inserted ${to} calls (${seconds.toFixed(0)} s)\n`);
  }
  const filled = performance.now();
  await rebuildRollups(db);
  await store.settle();
  const settled = performance.now();
  const [rollups] = await queryRows<{ n: unknown }>(db, sql`select count(*) as n from call_rollups_hourly`);
  const window30d = { projectId, start: new Date(Date.now() - 30 * 86_400_000), end: new Date() };
  const window24h = { projectId, start: new Date(Date.now() - 86_400_000), end: new Date() };
  const queries: [string, () => Promise<unknown>][] = [
    ["usage-summary 30d group_by=workload", () => usageSummaryGroups(db, window30d, ["workload"])],
    [
      "usage-summary 30d group_by=workload,model,day",
      () => usageSummaryGroups(db, window30d, ["workload", "model", "day"]),
    ],
    ["provider-health 24h", () => providerHealth(db, window24h)],
    ["workload-status 24h", () => workloadStatuses(db, window24h)],
  ];
  const timings = new Map<string, Timing>();
  for (const [label, run] of queries) timings.set(label, await timed(run));
  return {
    fillSeconds: (filled - started) / 1000,
    rollupSeconds: (settled - filled) / 1000,
    rollupRows: Number(rollups?.n),
    sizeBytes: await store.sizeBytes(),
    timings,
  };
}

const plan: FillPlan = { total, since: new Date(Date.now() - 30 * 86_400_000), projectId: "proj_bench" };
const results = await measureOnEachStore(
  plan,
  { sqlite: openSqliteBench, postgres: openPostgresBench },
  measure,
);

process.stdout.write(
  storeTable(`${total} calls over 30 days`, "query, median of 5 warm runs (min-max)", results, [
    ["fill `calls` (indexes in place)", (r) => `${r.fillSeconds.toFixed(1)} s`],
    ["rollup build + settle", (r) => `${r.rollupSeconds.toFixed(1)} s`],
    ["rollup rows", (r) => String(r.rollupRows)],
    ["size on disk", (r) => `${(r.sizeBytes / 2 ** 20).toFixed(0)} MiB`],
  ]),
);
