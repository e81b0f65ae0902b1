import type { Db } from "../client.ts";
import { addJsonRows } from "../json-rows.ts";
import { picoToUsd, usdToPico } from "../money.ts";
import type { CountTotals } from "../reports/window.ts";
import { callLatencyHourly, latencySpans } from "../schema/call-latency.ts";
import { callRollupsHourly, callRollupsMinutely } from "../schema/call-rollups.ts";
import { noNul } from "../sql-rows.ts";
import { latencyBucketOf } from "./latency.ts";
import { countColumns } from "./measures.ts";
import type { CallInsert } from "./record-calls.ts";

/**
 * What newly inserted calls add to the rollups and the latency histograms, summed from the rows in
 * hand: reading them back by id and grouping them in SQL cost the all-in-one process more than the
 * inserts did (docs/decisions.md, "Rollups from the rows in hand"). Each measure here counts a call
 * exactly as `measures.ts`'s SQL does, and each latency falls in the bucket `latency.ts`'s SQL
 * gives it: that SQL rebuilds the tables (`rebuildRollups`, the migrations' backfills) and reads the
 * partial edges of a report's window, and `test/rollups-in-hand.test.ts` holds the two equal.
 */
export async function addRowsToRollups(tx: Db, rows: CallInsert[]): Promise<void> {
  if (rows.length === 0) return;
  // each call is summed once, into its minute; an hour's sums are its minutes' (the periods are
  // aligned on the epoch, and an hour is a whole number of minutes), likewise the histograms'
  // longer spans from the hour's rows: the per-call work of the batch done once, not per period
  const minutes = rollupSums(rows);
  await addJsonRows(
    tx,
    callRollupsHourly,
    rollupRows(resummed(minutes, hourMs), "hour"),
    rollupKey("hour"),
    measures,
  );
  await addJsonRows(tx, callRollupsMinutely, rollupRows(minutes, "minute"), rollupKey("minute"), measures);
  await addJsonRows(tx, callLatencyHourly, latencyRows(rows), latencyKey, ["calls"]);
}

const hourMs = 3_600_000;
const measures = [...countColumns, "customer_cost_usd"];
const rollupKey = (period: string) => [
  "project_id",
  period,
  "workload_id",
  "provider_label",
  "model",
  "route",
];
const latencyKey = ["project_id", "span_hours", "starts_at", "workload_id", "model", "measure", "bucket_ms"];

/** The start (ms since the epoch) of the period of `stepMs`, aligned on the epoch, that holds `at`. */
const periodStart = (at: number, stepMs: number) => at - (at % stepMs);

/** The served model as the rollups key it ('' when none), as stored: U+0000 is U+FFFD in the store. */
const modelOf = (call: CallInsert) => noNul(call.servedModel ?? "");

/** The sums of one rollups row: its key (the period's start in ms) and `measures.ts`'s `countSums`. */
interface RollupSums extends CountTotals {
  projectId: string;
  start: number;
  workloadId: string;
  providerLabel: string;
  model: string;
  route: string;
  cost: bigint;
}

type RollupKey = Pick<RollupSums, "projectId" | "start" | "workloadId" | "providerLabel" | "model" | "route">;

/** The sums of `key`'s row in `groups`, a row of zeros added when it has none yet. */
function sumsOf(groups: Map<string, RollupSums>, key: RollupKey): RollupSums {
  const { projectId, start, workloadId, providerLabel, model, route } = key;
  const id = [projectId, start, workloadId, providerLabel, model, route].join("\0");
  let sums = groups.get(id);
  if (!sums) {
    // the key's fields only: `resummed` passes a whole row of sums as its key
    sums = { projectId, start, workloadId, providerLabel, model, route, ...zeroSums() };
    groups.set(id, sums);
  }
  return sums;
}

/** The calls summed by (project, minute, workload, provider, model, route): `measures.ts`'s `countSums`. */
function rollupSums(calls: CallInsert[]): RollupSums[] {
  const groups = new Map<string, RollupSums>();
  for (const c of calls) {
    const sums = sumsOf(groups, {
      projectId: noNul(c.projectId),
      start: periodStart(c.receivedAt.getTime(), 60_000),
      workloadId: noNul(c.workloadId),
      providerLabel: noNul(c.providerLabel),
      model: modelOf(c),
      route: noNul(c.route),
    });
    const broke = c.streamOutcome === "truncated" || c.streamOutcome === "upstream_error";
    const fellBack = c.route === "fallback";
    sums.requests += 1;
    sums.errors += c.status >= 400 || broke ? 1 : 0;
    sums.errors5xx += c.status >= 500 ? 1 : 0;
    sums.failing += c.status >= 500 || broke || fellBack ? 1 : 0;
    sums.timeouts += fellBack && c.fallbackReason === "timeout" ? 1 : 0;
    sums.inputTokens += c.inputTokens ?? 0;
    sums.cacheReadInputTokens += c.cacheReadInputTokens ?? 0;
    sums.cacheCreationInputTokens += c.cacheCreationInputTokens ?? 0;
    sums.outputTokens += c.outputTokens ?? 0;
    sums.pricedRequests += c.pricingStatus === "priced" ? 1 : 0;
    sums.cost += c.customerCostUsd == null ? 0n : usdToPico(c.customerCostUsd);
  }
  return [...groups.values()];
}

/** Rows of sums over a longer period, `stepMs` a whole number of the rows' period: each row's sums added into the period holding it. */
function resummed(rows: RollupSums[], stepMs: number): RollupSums[] {
  const groups = new Map<string, RollupSums>();
  for (const { cost, ...row } of rows) {
    const sums = sumsOf(groups, { ...row, start: periodStart(row.start, stepMs) });
    for (const measure of countMeasures) sums[measure] += row[measure];
    sums.cost += cost;
  }
  return [...groups.values()];
}

/** The rows of a rollups table of `period`: the start as its instant, the cost as decimal dollars. */
function rollupRows(rows: RollupSums[], period: "hour" | "minute") {
  return rows.map(({ start, cost, ...sums }) => ({
    ...sums,
    [period]: new Date(start),
    customerCostUsd: picoToUsd(cost),
  })) as (typeof callRollupsHourly.$inferInsert & typeof callRollupsMinutely.$inferInsert)[];
}

const zeroSums = () => ({
  requests: 0,
  errors: 0,
  errors5xx: 0,
  failing: 0,
  timeouts: 0,
  inputTokens: 0,
  cacheReadInputTokens: 0,
  cacheCreationInputTokens: 0,
  outputTokens: 0,
  pricedRequests: 0,
  cost: 0n,
});

/** The count measures of `CountTotals`, each summed by adding. */
const countMeasures = Object.keys(zeroSums()).filter((k) => k !== "cost") as (keyof CountTotals)[];

type LatencyRow = typeof callLatencyHourly.$inferInsert;

/** The row of `key` in `rows`, added with no calls when it has none yet. */
function latencyRowOf(
  rows: Map<string, LatencyRow>,
  key: Omit<LatencyRow, "calls" | "startsAt"> & { startsAt: number },
) {
  const id = [
    key.projectId,
    key.spanHours,
    key.startsAt,
    key.workloadId,
    key.model,
    key.measure,
    key.bucketMs,
  ].join("\0");
  let row = rows.get(id);
  if (!row) {
    row = { ...key, startsAt: new Date(key.startsAt), calls: 0 };
    rows.set(id, row);
  }
  return row;
}

/** The calls' histogram rows of every span: `latency.ts`'s `latencyRows`, counted here. */
function latencyRows(calls: CallInsert[]): LatencyRow[] {
  const [first, ...longer] = latencySpans;
  const hourly = new Map<string, LatencyRow>();
  const count = (c: CallInsert, measure: "total" | "first_byte", ms: number) => {
    latencyRowOf(hourly, {
      projectId: noNul(c.projectId),
      spanHours: first,
      startsAt: periodStart(c.receivedAt.getTime(), first * hourMs),
      workloadId: noNul(c.workloadId),
      model: modelOf(c),
      measure,
      bucketMs: latencyBucketOf(Math.floor(ms)),
    }).calls += 1;
  };
  for (const c of calls) {
    count(c, "total", c.totalMs);
    if (c.firstByteMs != null) count(c, "first_byte", c.firstByteMs);
  }
  // the longer spans' rows from the first's (each a whole number of it)
  const rows = new Map(hourly);
  for (const spanHours of longer)
    for (const { calls: n, startsAt, ...key } of hourly.values())
      latencyRowOf(rows, {
        ...key,
        spanHours,
        startsAt: periodStart(startsAt.getTime(), spanHours * hourMs),
      }).calls += n;
  return [...rows.values()];
}
