import { type SQL, sql } from "drizzle-orm";
import type { SqlDialect } from "../sql-dialect.ts";
import { modelKey } from "./measures.ts";

/**
 * A latency in whole milliseconds truncated to two significant digits: exact below 100 ms, then
 * 100, 110, ... 990, 1000, 1100, ... Truncation keeps order, so the nearest-rank percentile of the
 * buckets is the true percentile truncated the same way, and integer arithmetic gives the same
 * bucket on both stores. (`v` is used many times: pass a column expression, not a parameter.)
 */
function latencyBucket(d: SqlDialect, column: SQL): SQL {
  const v = d.wholeMs(column);
  const steps = [100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000];
  const cases = steps.map(
    (below, i) => sql`when ${v} < ${sql.raw(String(below))} then ${i === 0 ? v : truncate(v, below / 100)}`,
  );
  return sql`(case ${sql.join(cases, sql` `)} else ${truncate(v, 1_000_000)} end)`;
}

const truncate = (v: SQL, unit: number) => sql`${v} / ${sql.raw(String(unit))} * ${sql.raw(String(unit))}`;

/**
 * The calls matching `where` (over `calls c`) as histogram rows: one per hour (or the slice of
 * time `time` gives, in the column `hour`), workload, model, measure and bucket.
 */
export function latencyRows(d: SqlDialect, where: SQL, time: SQL = d.hourOf(sql`c.received_at`)): SQL {
  const hour = time;
  const of = (measure: string, column: SQL, also: SQL) => sql`
    select c.project_id, ${hour} as hour, c.workload_id, ${modelKey} as model, ${sql.raw(`'${measure}'`)} as measure,
           ${latencyBucket(d, column)} as bucket_ms, count(*) as calls
    from calls c
    where (${where}) and ${also}
    group by 1, 2, 3, 4, 5, 6`;
  return sql`${of("total", sql`c.total_ms`, sql`true`)}
    union all
    ${of("first_byte", sql`c.first_byte_ms`, sql`c.first_byte_ms is not null`)}`;
}

/**
 * Adds the calls matching `where` to the hourly latency histograms. Like `addToRollups`: only for
 * rows this transaction inserted, so a redelivered event never counts twice; ordered, so
 * concurrent writers take the rows' locks in one order.
 */
export function addToLatency(d: SqlDialect, where: SQL): SQL {
  return sql`
    insert into call_latency_hourly (project_id, hour, workload_id, model, measure, bucket_ms, calls)
    select * from (${latencyRows(d, where)}) h
    where true
    order by 1, 2, 3, 4, 5, 6
    on conflict (project_id, hour, workload_id, model, measure, bucket_ms)
      do update set calls = call_latency_hourly.calls + excluded.calls`;
}
