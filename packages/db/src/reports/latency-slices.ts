import { type SQL, sql } from "drizzle-orm";
import { latencyRows } from "../costing/latency.ts";
import { latencySpans } from "../schema/call-latency.ts";
import type { SqlDialect } from "../sql-dialect.ts";
import type { TimeWindow } from "./window.ts";

const hourMs = 3_600_000;

/** A window cut into whole histogram periods (coarsest first) and the raw calls between them. */
interface Cover {
  periods: { spanMs: number; from: number; to: number }[];
  /** `[from, to)`, the last one `[from, to]` when it ends the window. */
  raw: { from: number; to: number; last: boolean }[];
}

/**
 * Covers `[from, to]` with the longest whole periods of `spans` that fit, then the shorter ones at
 * its edges, then raw calls for what is left (under an hour): the 30-day overview reads a few days'
 * histogram rows, some 6-hour and hourly ones at its edges, and at most two hours of calls.
 */
function cover(from: number, to: number, last: boolean, spans: number[], into: Cover): Cover {
  const [span, ...shorter] = spans;
  const first = span === undefined ? 0 : Math.ceil(from / span) * span;
  const end = span === undefined ? 0 : Math.floor(to / span) * span;
  if (span === undefined || first >= end) {
    if (from < to || last) into.raw.push({ from, to, last });
    return into;
  }
  into.periods.push({ spanMs: span, from: first, to: end });
  cover(from, first, false, shorter, into);
  return cover(end, to, last, shorter, into);
}

/**
 * Latency histogram rows of the window in slices of `stepMs`: `t` (the slice's start, epoch ms),
 * `grp`, `measure`, `bucket_ms`, `calls`. Slices of 1, 6 or 24 hours read the kept histograms
 * (each period lies in one slice: the spans divide the slice and align on the epoch); shorter
 * slices read the calls.
 */
export function latencySlicesQuery(d: SqlDialect, window: TimeWindow, stepMs: number, group: SQL): SQL {
  const spans = latencySpans
    .map((h) => h * hourMs)
    .filter((span) => stepMs % hourMs === 0 && stepMs % span === 0)
    .sort((a, b) => b - a);
  const { periods, raw } = cover(window.start.getTime(), window.end.getTime(), true, spans, {
    periods: [],
    raw: [],
  });
  const ts = (ms: number) => d.ts(new Date(ms));
  // one range read per part (a union, not an `or`: SQLite walks its index once per range)
  const fromPeriods = periods.map(
    (p) => sql`
      select ${d.sliceOf(sql`h.starts_at`, stepMs)} as t, h.workload_id, h.model, h.measure, h.bucket_ms, h.calls
      from call_latency_hourly h
      where h.project_id = ${window.projectId} and h.span_hours = ${sql.raw(String(p.spanMs / hourMs))}
        and h.starts_at >= ${ts(p.from)} and h.starts_at < ${ts(p.to)}`,
  );
  const fromCalls = raw.map((r) => {
    const range = sql`c.received_at >= ${ts(r.from)} and c.received_at ${sql.raw(r.last ? "<=" : "<")} ${ts(r.to)}`;
    const rows = latencyRows(
      d,
      sql`c.project_id = ${window.projectId} and ${range}`,
      d.sliceOf(sql`c.received_at`, stepMs),
    );
    return sql`select starts_at as t, workload_id, model, measure, bucket_ms, calls from (${rows}) raw`;
  });
  return sql`
    with parts as (${sql.join([...fromPeriods, ...fromCalls], sql` union all `)})
    select t, ${group} as grp, measure, bucket_ms, sum(calls) as calls
    from parts
    group by 1, 2, 3, 4`;
}
