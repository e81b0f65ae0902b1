/**
 * The reports over one project's day at 100M calls a day (the shape: ./day/shape.ts), on
 * PostgreSQL and on SQLite, each report as the control plane calls it: cold (its first run on a
 * fresh connection) and warm (median of BENCH_RUNS runs after it, five by default).
 *
 *   pnpm bench:reports:100m     # BENCH_STORE=both|sqlite|postgres, BENCH_RUNS=5, BENCH_ONLY=<regexp>,
 *                               # BENCH_POSTGRES_URL, BENCH_DROP=1
 *
 * The seeded store is kept for the next run (minutes of seeding, once): BENCH_DROP=1 drops it
 * after the run.
 */
import { loadavg } from "node:os";
import {
  callCost,
  limitsStatus,
  providerHealth,
  queryRows,
  routingStatus,
  usageSummaryGroups,
  workloadStatuses,
} from "@gateway/db";
import { sql } from "drizzle-orm";
import { isSeeded, seedDay } from "./day/seed.ts";
import { now, orgId, projectId } from "./day/shape.ts";
import { type DayStore, openDayStore } from "./day/stores.ts";

const stores = { both: ["postgres", "sqlite"], sqlite: ["sqlite"], postgres: ["postgres"] }[
  process.env.BENCH_STORE ?? "both"
] as (keyof typeof openDayStore)[] | undefined;
if (!stores) throw new Error(`BENCH_STORE must be both, sqlite or postgres, not ${process.env.BENCH_STORE}`);
const runs = Number(process.env.BENCH_RUNS ?? 5);
/** Only the reports whose label matches (a regular expression), to re-run some. */
const only = new RegExp(process.env.BENCH_ONLY ?? "");
const minute = 60_000;

/**
 * Windows end 29.5 s before the bench's clock, off the minute: each of its edges then has a
 * partial minute read from the raw calls, as a report asked at any moment has.
 */
const end = new Date(now.getTime() - 29_500);
const window = (minutes: number) => ({
  projectId,
  start: new Date(end.getTime() - minutes * minute),
  end,
});
const day = window(24 * 60);

/** A call of the last hour, found by its request id or by its upstream message id. */
const lastHourCall = `req_${10_000_000_000 + 99_996_600}`;

const reports: [string, (s: DayStore) => Promise<unknown>][] = [
  ["routing-status", (s) => routingStatus(s.db, projectId)],
  ["provider-health 30m (default)", (s) => providerHealth(s.db, window(30))],
  ["provider-health 24h", (s) => providerHealth(s.db, day)],
  [
    "compact status 24h (routing + health)",
    (s) => Promise.all([routingStatus(s.db, projectId), providerHealth(s.db, day)]),
  ],
  ["workload-status 24h", (s) => workloadStatuses(s.db, day)],
  ["call cost by request id", (s) => callCost(s.db, orgId, lastHourCall)],
  ["call cost by upstream message id", (s) => callCost(s.db, orgId, lastHourCall.replace("req_", "msg_"))],
  [
    "usage-summary 7d group_by=workload (default)",
    (s) => usageSummaryGroups(s.db, window(7 * 1440), ["workload"]),
  ],
  ["usage-summary 30d group_by=workload", (s) => usageSummaryGroups(s.db, window(30 * 1440), ["workload"])],
  [
    "usage-summary 30d group_by=workload,model,day",
    (s) => usageSummaryGroups(s.db, window(30 * 1440), ["workload", "model", "day"]),
  ],
  [
    "limits-status 1h (default)",
    (s) => limitsStatus(s.db, { ...window(60), orgId, projectSlug: "bench" }, now),
  ],
  ["limits-status 24h", (s) => limitsStatus(s.db, { ...day, orgId, projectSlug: "bench" }, now)],
];

interface Timing {
  cold: number;
  median: number;
  min: number;
  max: number;
}

async function timed(run: () => Promise<unknown>): Promise<Timing> {
  const clock = async () => {
    const start = performance.now();
    await run();
    return performance.now() - start;
  };
  const cold = await clock();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await clock());
  times.sort((a, b) => a - b);
  return { cold, median: times[Math.floor(runs / 2)]!, min: times[0]!, max: times[runs - 1]! };
}

const ms = (t: Timing | undefined) =>
  t ? `${t.median.toFixed(1)} (${t.min.toFixed(1)}-${t.max.toFixed(1)}), cold ${t.cold.toFixed(1)}` : "";
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
const results = new Map<string, Map<string, Timing>>();
const facts = new Map<string, string>();
for (const name of stores) {
  let store = await openDayStore[name]();
  if (!(await isSeeded(store.db))) {
    process.stdout.write(`${name}: seeding (load ${load()})\n`);
    await seedDay(store.db, name);
    await store.settle();
    // a fresh connection, so the first run of each report is a cold one for the client side too
    await store.close();
    store = await openDayStore[name]();
  }
  const [raw] = await queryRows<{ n: unknown }>(store.db, sql`select count(*) as n from calls`);
  const [rollups] = await queryRows<{ n: unknown }>(
    store.db,
    sql`select count(*) as n from call_rollups_hourly`,
  );
  const [minuteRollups] = await queryRows<{ n: unknown }>(
    store.db,
    sql`select count(*) as n from call_rollups_minutely`,
  );
  const size = ((await store.sizeBytes()) / 2 ** 30).toFixed(1);
  facts.set(
    name,
    `${raw?.n} raw calls, ${rollups?.n} hourly and ${minuteRollups?.n} per-minute rollup rows, ${size} GiB; load before ${load()}`,
  );
  const timings = new Map<string, Timing>();
  for (const [label, run] of reports.filter(([label]) => only.test(label))) {
    const timing = await timed(() => run(store));
    timings.set(label, timing);
    process.stdout.write(`  ${name}: ${label}: ${ms(timing)} ms (load ${load()})\n`);
  }
  facts.set(name, `${facts.get(name)}, after ${load()}`);
  results.set(name, timings);
  await (process.env.BENCH_DROP === "1" ? store.drop() : store.close());
}

const header = [`report, ms: warm median of ${runs} (min-max), cold`, ...results.keys()];
process.stdout.write(`\nOne project at 100M calls a day, now = ${now.toISOString()}\n`);
for (const [name, fact] of facts) process.stdout.write(`${name}: ${fact}\n`);
process.stdout.write(`\n| ${header.join(" | ")} |\n|${header.map(() => " --- ").join("|")}|\n`);
for (const [label] of reports.filter(([label]) => only.test(label)))
  process.stdout.write(`| ${label} | ${[...results.values()].map((t) => ms(t.get(label))).join(" | ")} |\n`);
