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
  await addJsonRows(tx, callRollupsHourly, rollupRows(rows, "hour", 3_600_000), rollupKey("hour"), measures);
  await addJsonRows(
    tx,
    callRollupsMinutely,
    rollupRows(rows, "minute", 60_000),
    rollupKey("minute"),
    measures,
  );
  await addJsonRows(tx, callLatencyHourly, latencyRows(rows), latencyKey, ["calls"]);
}

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

/** The start of the period of `stepMs` (aligned on the epoch) that holds `at`. */
const periodStart = (at: Date, stepMs: number) => new Date(at.getTime() - (at.getTime() % stepMs));

/** The served model as the rollups key it ('' when none), as stored: U+0000 is U+FFFD in the store. */
const modelOf = (call: CallInsert) => noNul(call.servedModel ?? "");

interface RollupSums extends CountTotals {
  projectId: string;
  workloadId: string;
  providerLabel: string;
  model: string;
  route: string;
  cost: bigint;
}

/** The calls summed by (project, period, workload, provider, model, route): `measures.ts`'s `countSums`. */
function rollupRows(calls: CallInsert[], period: "hour" | "minute", stepMs: number) {
  const groups = new Map<string, RollupSums & { start: Date }>();
  for (const c of calls) {
    const start = periodStart(c.receivedAt, stepMs);
    const group = {
      projectId: noNul(c.projectId),
      workloadId: noNul(c.workloadId),
      providerLabel: noNul(c.providerLabel),
      model: modelOf(c),
      route: noNul(c.route),
    };
    const key = [
      group.projectId,
      start.getTime(),
      group.workloadId,
      group.providerLabel,
      group.model,
      group.route,
    ].join("\0");
    let sums = groups.get(key);
    if (!sums) {
      sums = { ...group, start, ...zeroSums() };
      groups.set(key, sums);
    }
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
  return [...groups.values()].map(({ start, cost, ...sums }) => ({
    ...sums,
    [period]: start,
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

/** The calls' histogram rows of every span: `latency.ts`'s `latencyRows`, counted here. */
function latencyRows(calls: CallInsert[]): (typeof callLatencyHourly.$inferInsert)[] {
  const counts = new Map<string, typeof callLatencyHourly.$inferInsert>();
  const count = (c: CallInsert, spanHours: number, measure: "total" | "first_byte", ms: number) => {
    const startsAt = periodStart(c.receivedAt, spanHours * 3_600_000);
    const projectId = noNul(c.projectId);
    const workloadId = noNul(c.workloadId);
    const model = modelOf(c);
    const bucketMs = latencyBucketOf(Math.floor(ms));
    const key = [projectId, spanHours, startsAt.getTime(), workloadId, model, measure, bucketMs].join("\0");
    const row = counts.get(key);
    if (row) row.calls += 1;
    else counts.set(key, { projectId, spanHours, startsAt, workloadId, model, measure, bucketMs, calls: 1 });
  };
  for (const c of calls)
    for (const span of latencySpans) {
      count(c, span, "total", c.totalMs);
      if (c.firstByteMs != null) count(c, span, "first_byte", c.firstByteMs);
    }
  return [...counts.values()];
}
