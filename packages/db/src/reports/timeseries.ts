import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { isError } from "../costing/measures.ts";
import { picoToUsd, usdToPico } from "../money.ts";
import { type SqlDialect, sqlFor } from "../sql-dialect.ts";
import { queryRows, toCount } from "../sql-rows.ts";
import { usd } from "./format.ts";
import { latencySlicesQuery } from "./latency-slices.ts";
import { percentile } from "./percentile.ts";
import type { TimeWindow } from "./window.ts";
import { projectWorkloads } from "./workload-names.ts";

export const timeseriesGroupKeys = ["model", "workload"] as const;
export type TimeseriesGroupKey = (typeof timeseriesGroupKeys)[number];

/** One slice of time: its calls, errors, spend and latency percentiles (null without calls). */
export interface SeriesPoint {
  start: string;
  calls: number;
  errors: number;
  spend_usd: number;
  p50_total_ms: number | null;
  p95_total_ms: number | null;
  p50_first_byte_ms: number | null;
  p95_first_byte_ms: number | null;
}

export interface SeriesGroup {
  workload_id: string | null;
  workload: string | null;
  model: string | null;
  series: SeriesPoint[];
}

const hourMs = 3_600_000;

/** Sums and histograms of one slice (of one group, or of all). */
interface Slice {
  calls: number;
  errors: number;
  spendPico: bigint;
  latency: { total: Map<number, number>; first_byte: Map<number, number> };
}

const emptySlice = (): Slice => ({
  calls: 0,
  errors: 0,
  spendPico: 0n,
  latency: { total: new Map(), first_byte: new Map() },
});

/**
 * Calls, errors, spend and p50/p95 latencies of the project over `window`, in slices of `stepMs`
 * aligned on the epoch (UTC; the first and last slices are partial), overall and per group.
 * With slices of whole hours, the sums of whole hours come from the rollups and the partial edge
 * hours from the calls, as the reports read them; the latencies come from the histograms of whole
 * periods of 24, 6 and 1 hours and from the calls for what is left (`latencySlicesQuery`);
 * shorter slices read the calls. Percentiles are
 * nearest-rank over latencies rounded down to the E12 series (see `latencyBucket`), so both stores
 * give the same numbers whatever the window.
 */
export async function callTimeseries(
  db: Db,
  window: TimeWindow,
  stepMs: number,
  groupBy: TimeseriesGroupKey | null,
): Promise<{ series: SeriesPoint[]; groups: SeriesGroup[] }> {
  const d = sqlFor(db);
  const group = groupBy === "model" ? sql`model` : groupBy === "workload" ? sql`workload_id` : sql`''`;
  // the sums from whole hours of the rollups, the latencies from whole periods of the histograms
  const sums = sourceParts(d, window, stepMs, stepMs % hourMs === 0 ? hourMs : null);
  const [totals, latencies, names] = await Promise.all([
    queryRows<Record<string, unknown>>(db, totalsQuery(d, sums, group)),
    queryRows<Record<string, unknown>>(db, latencySlicesQuery(d, window, stepMs, group)),
    groupBy === "workload" ? projectWorkloads(db, window.projectId) : Promise.resolve([]),
  ]);
  const first = Math.floor(window.start.getTime() / stepMs) * stepMs;
  const starts: number[] = [];
  for (let t = first; t <= window.end.getTime(); t += stepMs) starts.push(t);
  const overall = new Map<number, Slice>();
  const byGroup = new Map<string, Map<number, Slice>>();
  const sliceOf = (grp: string, t: number) => {
    const slices = byGroup.get(grp) ?? new Map<number, Slice>();
    byGroup.set(grp, slices);
    const at = (map: Map<number, Slice>) => map.get(t) ?? map.set(t, emptySlice()).get(t)!;
    return [at(overall), at(slices)];
  };
  for (const row of totals) {
    for (const s of sliceOf(String(row.grp), Number(row.t))) {
      s.calls += toCount(row.calls);
      s.errors += toCount(row.errors);
      s.spendPico += usdToPico(d.costText(row));
    }
  }
  for (const row of latencies) {
    const measure = row.measure === "total" ? "total" : "first_byte";
    for (const s of sliceOf(String(row.grp), Number(row.t))) {
      const histogram = s.latency[measure];
      const bucket = Number(row.bucket_ms);
      histogram.set(bucket, (histogram.get(bucket) ?? 0) + toCount(row.calls));
    }
  }
  const nameOf = new Map(names.map((w) => [w.id, w.name]));
  const groups = [...byGroup.keys()].sort().map(
    (key): SeriesGroup => ({
      workload_id: groupBy === "workload" ? key : null,
      workload: groupBy === "workload" ? (nameOf.get(key) ?? null) : null,
      model: groupBy === "model" && key !== "" ? key : null,
      series: points(starts, byGroup.get(key)!),
    }),
  );
  return { series: points(starts, overall), groups: groupBy ? groups : [] };
}

function points(starts: number[], slices: Map<number, Slice>): SeriesPoint[] {
  return starts.map((t) => {
    const s = slices.get(t) ?? emptySlice();
    return {
      start: new Date(t).toISOString(),
      calls: s.calls,
      errors: s.errors,
      spend_usd: usd(picoToUsd(s.spendPico)),
      p50_total_ms: percentile(s.latency.total, 0.5),
      p95_total_ms: percentile(s.latency.total, 0.95),
      p50_first_byte_ms: percentile(s.latency.first_byte, 0.5),
      p95_first_byte_ms: percentile(s.latency.first_byte, 0.95),
    };
  });
}

/** Where a query's rows come from: the raw calls' range, and the whole periods read pre-summed. */
interface SourceParts {
  projectId: string;
  stepMs: number;
  raw: SQL;
  whole: { from: Date; to: Date } | null;
}

/** The window split into whole periods of `unitMs` (null: none, the calls alone) and the partial edges. */
function sourceParts(
  d: SqlDialect,
  { projectId, start, end }: TimeWindow,
  stepMs: number,
  unitMs: number | null,
): SourceParts {
  const ts = d.ts;
  const everyCall = sql`c.received_at >= ${ts(start)} and c.received_at <= ${ts(end)}`;
  if (unitMs === null) return { projectId, stepMs, raw: everyCall, whole: null };
  const from = new Date(Math.ceil(start.getTime() / unitMs) * unitMs);
  const to = new Date(Math.floor(end.getTime() / unitMs) * unitMs);
  if (from >= to) return { projectId, stepMs, raw: everyCall, whole: null };
  const raw = sql`((c.received_at >= ${ts(start)} and c.received_at < ${ts(from)})
    or (c.received_at >= ${ts(to)} and c.received_at <= ${ts(end)}))`;
  return { projectId, stepMs, raw, whole: { from, to } };
}

function totalsQuery(d: SqlDialect, p: SourceParts, group: SQL): SQL {
  const fromHours = p.whole
    ? sql`
      select ${d.sliceOf(sql`r.hour`, p.stepMs)} as t, r.workload_id, r.model, sum(r.requests) as calls,
             sum(r.errors) as errors, ${d.costSums(sql`r.customer_cost_usd`)}
      from call_rollups_hourly r
      where r.project_id = ${p.projectId} and r.hour >= ${d.ts(p.whole.from)} and r.hour < ${d.ts(p.whole.to)}
      group by 1, 2, 3
      union all`
    : sql``;
  return sql`
    with parts as (
      ${fromHours}
      select ${d.sliceOf(sql`c.received_at`, p.stepMs)} as t, c.workload_id, coalesce(c.served_model, '') as model,
             count(*) as calls, sum(case when ${isError} then 1 else 0 end) as errors,
             ${d.costSums(sql`c.customer_cost_usd`)}
      from calls c
      where c.project_id = ${p.projectId} and ${p.raw}
      group by 1, 2, 3
    )
    select t, ${group} as grp, sum(calls) as calls, sum(errors) as errors, ${d.outerCostSums}
    from parts
    group by 1, 2`;
}
