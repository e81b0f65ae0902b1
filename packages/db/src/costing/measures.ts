import { type SQL, sql } from "drizzle-orm";
import type { SqlDialect } from "../sql-dialect.ts";

/**
 * What each call adds to the reports, as SQL over a `calls` row aliased `c`. The hourly rollups
 * are filled from these same expressions and the reports read the partial edge hours through
 * them, so a report over rollups plus raw rows equals one over raw rows alone. The same text on
 * both dialects.
 *
 * - error: the caller did not get a complete answer (status >= 400, or a stream that broke).
 * - failing: a provider-side problem (5xx, a broken stream, or a routed arm that fell back).
 * - timeout: a routed arm that timed out and fell back.
 */
export const isError = sql`(c.status >= 400 or c.stream_outcome in ('truncated', 'upstream_error'))`;
export const isFailing = sql`(c.status >= 500 or c.stream_outcome in ('truncated', 'upstream_error') or c.route = 'fallback')`;
const is5xx = sql`(c.status >= 500)`;
const isTimeout = sql`(c.route = 'fallback' and c.fallback_reason = 'timeout')`;

export const modelKey = sql`coalesce(c.served_model, '')`;

const flag = (condition: SQL) => sql`sum(case when ${condition} then 1 else 0 end)`;

/** The count measures (every measure but the cost), aggregated over a set of `calls c` rows. */
export const countSums = sql`
  count(*) as requests,
  ${flag(isError)} as errors,
  ${flag(is5xx)} as errors_5xx,
  ${flag(isFailing)} as failing,
  ${flag(isTimeout)} as timeouts,
  coalesce(sum(c.input_tokens), 0) as input_tokens,
  coalesce(sum(c.cache_read_input_tokens), 0) as cache_read_input_tokens,
  coalesce(sum(c.cache_creation_input_tokens), 0) as cache_creation_input_tokens,
  coalesce(sum(c.output_tokens), 0) as output_tokens,
  ${flag(sql`c.pricing_status = 'priced'`)} as priced_requests`;

export const countColumns = [
  "requests",
  "errors",
  "errors_5xx",
  "failing",
  "timeouts",
  "input_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
  "output_tokens",
  "priced_requests",
] as const;

const measureColumns = [...countColumns, "customer_cost_usd"];

/** The rollup tables, each the sums of `calls` by one period: its column and its length. */
export const rollupTables = [
  { name: "call_rollups_hourly", period: "hour", stepMs: 3_600_000 },
  { name: "call_rollups_minutely", period: "minute", stepMs: 60_000 },
] as const;
export type RollupTable = (typeof rollupTables)[number];

/** A rollup table's key, in its primary key's order. */
const rollupKeyOf = (table: RollupTable) =>
  sql.raw(`project_id, ${table.period}, workload_id, provider_label, model, route`);

/** A call's period in each rollup table, as columns named after them (`hour, minute`), over `calls c`. */
export const rollupPeriods = (d: SqlDialect) =>
  sql.join(
    rollupTables.map((t) => sql`${d.periodOf(sql`c.received_at`, t.stepMs)} as ${sql.raw(t.period)}`),
    sql`, `,
  );

/**
 * Adds the calls matching `where` (over `calls c`) to a rollup table. Run it only for rows
 * this transaction inserted, so a redelivered event never counts twice. (One hour's cost of one
 * group is a plain sum on SQLite too: it overflows only past $9.2 million.)
 */
export function addToRollups(dialect: SqlDialect, table: RollupTable, where: SQL): SQL {
  const sets = sql.join(
    measureColumns.map((m) => sql.raw(`${m} = ${table.name}.${m} + excluded.${m}`)),
    sql`, `,
  );
  const key = rollupKeyOf(table);
  return sql`
    insert into ${sql.raw(table.name)} (${key}, ${sql.raw(measureColumns.join(", "))})
    select c.project_id, ${dialect.periodOf(sql`c.received_at`, table.stepMs)}, c.workload_id, c.provider_label, ${modelKey},
           c.route, ${countSums}, coalesce(sum(c.customer_cost_usd), 0) as customer_cost_usd
    from calls c
    where ${where}
    group by 1, 2, 3, 4, 5, 6
    order by 1, 2, 3, 4, 5, 6
    on conflict (${key}) do update set ${sets}`;
}
