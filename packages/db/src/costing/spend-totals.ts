import {
  type BudgetPeriod,
  budgetPeriodBounds,
  budgetPeriods,
  type LimitScope,
  type SpendTotal,
} from "@gateway/contracts";
import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { isSqlite } from "../dialect.ts";
import { noNul, queryRows, toCount } from "../sql-rows.ts";
import { periodSpendSqlite } from "../sqlite/spend-totals.ts";
import { type ReceivedWithin, requestIdIn } from "./record-calls.ts";

/** A scope spend is counted in. */
export interface SpendScope {
  scope: LimitScope;
  id: string;
}

/** A scope's spend in one period, exact: the decimal text of the summed customer cost. */
export interface PeriodSpend {
  scope: LimitScope;
  scopeId: string;
  period: BudgetPeriod;
  /** `YYYY-MM-DD` of the period's first day. */
  periodStart: string;
  managedUsd: string;
  allUsd: string;
  /** The same two sums in whole micro-dollars, rounded down by the database. */
  managedMicros: number;
  allMicros: number;
}

export const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The priced spend of each scope that `scopes` (rows of `scope, scope_id`) selects, in the day
 * and in the month holding `now` (UTC), from `spend_daily`: a month is the sum of its days. Every
 * scope gets both periods, zero where nothing was spent, so a published total also clears a stale
 * one. Sums stay exact (`numeric`, or pico-dollars on SQLite); the micros are floored from the
 * exact sum, never from a float.
 */
function periodSpend(db: Db, scopes: SQL, now: Date): Promise<PeriodSpend[]> {
  return isSqlite(db) ? periodSpendSqlite(db, scopes, now) : periodSpendPostgres(db, scopes, now);
}

async function periodSpendPostgres(db: Db, scopes: SQL, now: Date): Promise<PeriodSpend[]> {
  const periods = sql.join(
    budgetPeriods.map((period) => {
      const { start, end } = budgetPeriodBounds(period, now);
      return sql`(${period}, ${isoDay(start)}::date, ${isoDay(end)}::date)`;
    }),
    sql`, `,
  );
  const rows = await queryRows<Record<string, unknown>>(
    db,
    sql`
    with wanted as (select distinct scope, scope_id from (${scopes}) w),
    periods(period, first_day, end_day) as (values ${periods}),
    sums as (
      select w.scope, w.scope_id, p.period, p.first_day,
             coalesce(sum(d.customer_cost_usd) filter (where d.mode = 'managed'), 0) as managed_usd,
             coalesce(sum(d.customer_cost_usd), 0) as all_usd
      from wanted w
      cross join periods p
      left join spend_daily d
        on d.scope = w.scope and d.scope_id = w.scope_id and d.day >= p.first_day and d.day < p.end_day
      group by 1, 2, 3, 4
    )
    select scope, scope_id, period, to_char(first_day, 'YYYY-MM-DD') as period_start,
           trim_scale(managed_usd)::text as managed_usd, trim_scale(all_usd)::text as all_usd,
           floor(managed_usd * 1000000)::text as managed_micros, floor(all_usd * 1000000)::text as all_micros
    from sums
    order by scope, scope_id, period`,
  );
  return rows.map((r) => ({
    scope: r.scope as LimitScope,
    scopeId: String(r.scope_id),
    period: r.period as BudgetPeriod,
    periodStart: String(r.period_start),
    managedUsd: String(r.managed_usd),
    allUsd: String(r.all_usd),
    managedMicros: toCount(r.managed_micros),
    allMicros: toCount(r.all_micros),
  }));
}

const spendTotal = ({ managedUsd: _m, allUsd: _a, ...total }: PeriodSpend): SpendTotal => total;

/** The exact spend of these scopes in the day and month holding `now` (the limits-status report). */
export function scopeSpend(db: Db, scopes: readonly SpendScope[], now: Date): Promise<PeriodSpend[]> {
  if (scopes.length === 0) return Promise.resolve([]);
  return periodSpend(db, scopeRows(db, scopes), now);
}

/**
 * The spend totals of those of these scopes that have a budget, in the day and month holding
 * `now`: the gateway reads published spend only to admit calls under a budget. Which of them have
 * one is asked first, so a batch whose scopes have none (the usual batch) costs one small query,
 * not the grouped sums (docs/decisions.md, "Spend is published for the scopes with a budget").
 */
export async function spendTotals(db: Db, scopes: readonly SpendScope[], now: Date): Promise<SpendTotal[]> {
  if (scopes.length === 0) return [];
  const budgeted = await queryRows<{ scope: LimitScope; scope_id: string }>(
    db,
    sql`select l.scope, l.scope_id from limits l join (${scopeRows(db, scopes)}) w
        on l.scope = w.scope and l.scope_id = w.scope_id where l.budget_usd is not null`,
  );
  if (budgeted.length === 0) return [];
  const withBudget = budgeted.map((r) => ({ scope: r.scope, id: r.scope_id }));
  return (await periodSpend(db, scopeRows(db, withBudget), now)).map(spendTotal);
}

/** Scopes as rows of `scope, scope_id`, the list one JSON parameter. */
function scopeRows(db: Db, scopes: readonly SpendScope[]): SQL {
  const list = JSON.stringify(scopes.map((s) => ({ scope: s.scope, scope_id: s.id })));
  return isSqlite(db)
    ? sql`select value ->> 'scope' as scope, value ->> 'scope_id' as scope_id from json_each(${list})`
    : sql`select * from jsonb_to_recordset(${list}::jsonb) as x(scope text, scope_id text)`;
}

/** The spend totals of every scope with a budget in `limits`: the costing worker's full republish. */
export async function budgetSpendTotals(db: Db, now: Date): Promise<SpendTotal[]> {
  const scopes = sql`select scope, scope_id from limits where budget_usd is not null`;
  return (await periodSpend(db, scopes, now)).map(spendTotal);
}

/** The scopes the cost of these calls (received `within` that range, when known) is counted in: their keys, projects and workloads. */
export async function scopesOfCalls(
  db: Db,
  requestIds: readonly string[],
  within?: ReceivedWithin,
): Promise<SpendScope[]> {
  if (requestIds.length === 0) return [];
  const calls = requestIdIn(db, requestIds, within);
  const rows = await queryRows<{ scope: LimitScope; scope_id: string }>(
    db,
    sql`select 'api_key' as scope, c.api_key_id as scope_id from calls c where ${calls}
        union select 'project', c.project_id from calls c where ${calls}
        union select 'workload', c.workload_id from calls c where ${calls}
        order by 1, 2`,
  );
  return rows.map((r) => ({ scope: r.scope, id: r.scope_id }));
}

/**
 * `scopesOfCalls` of calls in hand, as the database stores their ids: the all-in-one process
 * prices a batch as it inserts it and needs not read the scopes back.
 */
export function scopesOfRows(
  calls: readonly { apiKeyId: string; projectId: string; workloadId: string }[],
): SpendScope[] {
  const scopes = new Map<string, SpendScope>();
  const add = (scope: LimitScope, id: string) => scopes.set(`${scope}\0${id}`, { scope, id: noNul(id) });
  for (const c of calls) {
    add("api_key", c.apiKeyId);
    add("project", c.projectId);
    add("workload", c.workloadId);
  }
  return [...scopes.values()];
}
