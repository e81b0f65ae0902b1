import type { ProviderLabel } from "@gateway/contracts";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { countColumns, countSums } from "../costing/measures.ts";
import { callsKeptSince } from "../retention/settings.ts";
import { type SqlDialect, sqlFor } from "../sql-dialect.ts";
import { queryRows, toCount } from "../sql-rows.ts";

/** What a report can group call totals by. `day` is the UTC calendar date (YYYY-MM-DD). */
const windowDims = ["workload_id", "provider_label", "model", "route", "day"] as const;
export type WindowDim = (typeof windowDims)[number];

export interface TimeWindow {
  projectId: string;
  start: Date;
  end: Date;
}

interface Totals {
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
  /** Exact decimal text of the summed customer cost of the priced calls. */
  customerCostUsd: string;
}

/** A group's key: its `provider_label` is one of the labels the gateway writes its calls with. */
export type DimValues = { [K in WindowDim]: K extends "provider_label" ? ProviderLabel : string };

export type GroupTotals<D extends WindowDim> = Pick<DimValues, D> & Totals;

const hourMs = 3_600_000;

/**
 * The whole UTC hours inside [start, end] come from the rollups; the partial hours at either
 * edge come from the raw calls. Both sides use the same measure expressions, so the result is
 * what a scan of every call in the window would give. A start older than the org keeps call rows
 * (`rawSince`) has no rows to read: its whole hour comes from the rollups instead, so the window
 * reported starts up to an hour early rather than missing calls (docs/operations.md "Retention").
 */
function splitWindow({ start, end }: TimeWindow, rawSince: Date) {
  const round = start < rawSince ? Math.floor : Math.ceil;
  const firstWhole = new Date(round(start.getTime() / hourMs) * hourMs);
  const lastWholeEnd = new Date(Math.floor(end.getTime() / hourMs) * hourMs);
  return firstWhole < lastWholeEnd ? { firstWhole, lastWholeEnd } : null;
}

const rollupDim = (d: SqlDialect): Record<WindowDim, SQL> => ({
  workload_id: sql`r.workload_id`,
  provider_label: sql`r.provider_label`,
  model: sql`r.model`,
  route: sql`r.route`,
  day: d.dayOf(sql`r.hour`),
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
  const ts = d.ts;
  const split = splitWindow(window, await callsKeptSince(db, projectId, new Date()));
  const rawRange = split
    ? sql`((c.received_at >= ${ts(start)} and c.received_at < ${ts(split.firstWhole)})
          or (c.received_at >= ${ts(split.lastWholeEnd)} and c.received_at <= ${ts(end)}))`
    : sql`c.received_at >= ${ts(start)} and c.received_at <= ${ts(end)}`;
  const rollupSums = sql.raw(countColumns.map((m) => `sum(r.${m}) as ${m}`).join(", "));
  const fromRollups = split
    ? sql`
      select ${selectDims(dims, rollupDim(d))}, ${rollupSums}, ${d.costSums(sql`r.customer_cost_usd`)}
      from call_rollups_hourly r
      where r.project_id = ${projectId} and r.hour >= ${ts(split.firstWhole)} and r.hour < ${ts(split.lastWholeEnd)}
      group by ${groupBy(dims)}
      union all`
    : sql``;
  const outerDims =
    dims.length === 0
      ? sql`one_group`
      : sql.join(
          dims.map((d) => sql.identifier(d)),
          sql`, `,
        );
  const outerSums = sql.raw(countColumns.map((m) => `sum(${m}) as ${m}`).join(", "));
  const rows = await queryRows<Record<string, unknown>>(
    db,
    sql`
    with parts as (
      ${fromRollups}
      select ${selectDims(dims, callDim(d))}, ${countSums}, ${d.costSums(sql`c.customer_cost_usd`)}
      from calls c
      where c.project_id = ${projectId} and ${rawRange}
      group by ${groupBy(dims)}
    )
    select ${outerDims}, ${outerSums}, ${d.outerCostSums}
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
