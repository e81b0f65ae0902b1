import type { ProviderLabel } from "@gateway/contracts";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { countColumns, countSums, type RollupTable, rollupTables } from "../costing/measures.ts";
import { callsKeptSince } from "../retention/settings.ts";
import { type SqlDialect, sqlFor } from "../sql-dialect.ts";
import { queryRows, toCount } from "../sql-rows.ts";
import { inRange, splitWindow, type TimeRange } from "./window-parts.ts";

/** What a report can group call totals by. `day` is the UTC calendar date (YYYY-MM-DD). */
const windowDims = ["workload_id", "provider_label", "model", "route", "day"] as const;
export type WindowDim = (typeof windowDims)[number];

export interface TimeWindow {
  projectId: string;
  start: Date;
  end: Date;
}

/** The count measures of a set of calls (`measures.ts`'s `countSums`). */
export interface CountTotals {
  requests: number;
  errors: number;
  errors5xx: number;
  failing: number;
  timeouts: number;
  inputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  outputTokens: number;
  pricedRequests: number;
}

interface Totals extends CountTotals {
  /** Exact decimal text of the summed customer cost of the priced calls. */
  customerCostUsd: string;
}

/** A group's key: its `provider_label` is one of the labels the gateway writes its calls with. */
export type DimValues = { [K in WindowDim]: K extends "provider_label" ? ProviderLabel : string };

export type GroupTotals<D extends WindowDim> = Pick<DimValues, D> & Totals;

const dayMs = 86_400_000;

/**
 * A group's dimensions over a rollup table `r` whose period column is `period`. The day is the
 * UTC day's start here, formatted once per group by the outer query (formatting every row made
 * grouping by day twice as slow).
 */
const rollupDim = (d: SqlDialect, period: SQL): Record<WindowDim, SQL> => ({
  workload_id: sql`r.workload_id`,
  provider_label: sql`r.provider_label`,
  model: sql`r.model`,
  route: sql`r.route`,
  day: d.periodOf(period, dayMs),
});
export const callDim = (d: SqlDialect): Record<WindowDim, SQL> => ({
  workload_id: sql`c.workload_id`,
  provider_label: sql`c.provider_label`,
  model: sql`coalesce(c.served_model, '')`,
  route: sql`c.route`,
  day: d.dayOf(sql`c.received_at`),
});

export function selectDims(dims: readonly WindowDim[], source: Record<WindowDim, SQL>): SQL {
  if (dims.length === 0) return sql`1 as one_group`;
  return sql.join(
    dims.map((d) => sql`${source[d]} as ${sql.identifier(d)}`),
    sql`, `,
  );
}

const groupBy = (dims: readonly WindowDim[]) =>
  sql.raw(dims.length === 0 ? "1" : dims.map((_, i) => String(i + 1)).join(", "));

/** Call totals over a window, grouped by `dims` (none: one group, when there is any traffic). */
export async function windowTotals<D extends WindowDim>(
  db: Db,
  window: TimeWindow,
  dims: readonly D[],
): Promise<GroupTotals<D>[]> {
  const { projectId, start, end } = window;
  const d = sqlFor(db);
  const parts = splitWindow(start, end, await callsKeptSince(db, projectId, new Date()));
  const rollupSums = sql.raw(countColumns.map((m) => `sum(r.${m}) as ${m}`).join(", "));
  // one select per range, each served by its table's index on (project, time)
  const fromRollups = (table: RollupTable) => (range: TimeRange) => {
    const period = sql.raw(`r.${table.period}`);
    return sql`
      select ${selectDims(dims, rollupDim(d, period))}, ${rollupSums}, ${d.costSums(sql`r.customer_cost_usd`)}
      from ${sql.raw(table.name)} r
      where r.project_id = ${projectId} and ${inRange(d, period, range)}
      group by ${groupBy(dims)}`;
  };
  const [hourly, minutely] = rollupTables;
  const callDayStart = { ...callDim(d), day: d.periodOf(sql`c.received_at`, dayMs) };
  const fromCalls = (range: TimeRange) => sql`
      select ${selectDims(dims, callDayStart)}, ${countSums}, ${d.costSums(sql`c.customer_cost_usd`)}
      from calls c
      where c.project_id = ${projectId} and ${inRange(d, sql`c.received_at`, range)}
      group by ${groupBy(dims)}`;
  const selects = [
    ...(parts.hours ? [parts.hours] : []).map(fromRollups(hourly)),
    ...parts.minutes.map(fromRollups(minutely)),
    ...parts.raw.map(fromCalls),
  ];
  const outerSums = sql.raw(countColumns.map((m) => `sum(${m}) as ${m}`).join(", "));
  const outer = (render: (dim: WindowDim) => SQL) =>
    dims.length === 0 ? sql`one_group` : sql.join(dims.map(render), sql`, `);
  const outerDims = outer((dim) => sql`${sql.identifier(dim)}`);
  // the day leaves the parts as its start: formatted here, once per group
  const outerKeys = outer((dim) =>
    dim === "day" ? sql`${d.dayOf(sql`day`)} as day` : sql`${sql.identifier(dim)}`,
  );
  const rows = await queryRows<Record<string, unknown>>(
    db,
    sql`
    with parts as (${sql.join(selects, sql` union all `)})
    select ${outerKeys}, ${outerSums}, ${d.outerCostSums}
    from parts
    group by ${outerDims}
    having sum(requests) > 0
    order by ${outerDims}`,
  );
  return rows.map((row) => {
    const totals: Totals = {
      requests: toCount(row.requests),
      errors: toCount(row.errors),
      errors5xx: toCount(row.errors_5xx),
      failing: toCount(row.failing),
      timeouts: toCount(row.timeouts),
      inputTokens: toCount(row.input_tokens),
      cacheReadInputTokens: toCount(row.cache_read_input_tokens),
      cacheCreationInputTokens: toCount(row.cache_creation_input_tokens),
      outputTokens: toCount(row.output_tokens),
      pricedRequests: toCount(row.priced_requests),
      customerCostUsd: d.costText(row),
    };
    const keys = Object.fromEntries(dims.map((d) => [d, String(row[d])])) as Pick<DimValues, D>;
    return { ...keys, ...totals };
  });
}
