import { type SQL, sql } from "drizzle-orm";
import { latencySpans } from "../schema/call-latency.ts";
import type { SqlDialect } from "../sql-dialect.ts";
import { modelKey } from "./measures.ts";

const hourMs = 3_600_000;

/** The E12 series (IEC 60063), 12 steps a decade, each about 20 % above the one before. */
const e12 = [10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82];
/** Bucket floors from 10 ms to 82,000 s: below 10 ms a latency is its own bucket. */
const floors = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000].flatMap((unit) => e12.map((m) => m * unit));

/**
 * A latency `v` (whole milliseconds, a column of the query) rounded down to the E12 series: exact
 * below 10 ms, then 10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82, 100, 120 ... Rounding down
 * keeps order, so the nearest-rank percentile of the buckets is the true percentile rounded down
 * the same way, and integer comparisons give the same bucket on both stores. About 36 buckets
 * cover 10 ms to 10 s, so a slice of many calls is a few rows.
 */
const latencyBucket = sql.raw(
  `(case when v < 10 then v${floors.map((floor, i) => ` when v < ${floors[i + 1] ?? Number.MAX_SAFE_INTEGER} then ${floor}`).join("")} end)`,
);

/** `latencyBucket` in JavaScript, for a latency in whole milliseconds (`rollups-in-hand.ts`). */
export function latencyBucketOf(ms: number): number {
  if (ms < 10) return ms;
  let floor = floors[0]!;
  for (const next of floors) {
    if (next > ms) break;
    floor = next;
  }
  return floor;
}

/**
 * The calls matching `where` (over `calls c`) as histogram rows: one per period (the slice of
 * time `period` gives, in the column `starts_at`), workload, model, measure and bucket.
 */
export function latencyRows(d: SqlDialect, where: SQL, period: SQL): SQL {
  const of = (measure: string, column: SQL, also: SQL) => sql`
    select c.project_id, ${period} as starts_at, c.workload_id, ${modelKey} as model,
           ${sql.raw(`'${measure}'`)} as measure, ${d.wholeMs(column)} as v
    from calls c
    where (${where}) and ${also}`;
  return sql`
    select project_id, starts_at, workload_id, model, measure, ${latencyBucket} as bucket_ms, count(*) as calls
    from (${of("total", sql`c.total_ms`, sql`true`)}
      union all
      ${of("first_byte", sql`c.first_byte_ms`, sql`c.first_byte_ms is not null`)}) m
    group by 1, 2, 3, 4, 5, 6`;
}

/**
 * Adds the calls matching `where` to the latency histograms of every span. Like `addToRollups`:
 * only for rows this transaction inserted, so a redelivered event never counts twice; ordered,
 * so concurrent writers take the rows' locks in one order.
 */
export function addToLatency(d: SqlDialect, where: SQL): SQL {
  const spans = latencySpans.map(
    (hours) => sql`
    select project_id, ${sql.raw(String(hours))} as span_hours, starts_at, workload_id, model, measure, bucket_ms, calls
    from (${latencyRows(d, where, d.periodOf(sql`c.received_at`, hours * hourMs))}) p${sql.raw(String(hours))}`,
  );
  return sql`
    insert into call_latency_hourly (project_id, span_hours, starts_at, workload_id, model, measure, bucket_ms, calls)
    select * from (${sql.join(spans, sql` union all `)}) h
    where true
    order by 1, 2, 3, 4, 5, 6, 7
    on conflict (project_id, span_hours, starts_at, workload_id, model, measure, bucket_ms)
      do update set calls = call_latency_hourly.calls + excluded.calls`;
}
