import { type BudgetPeriod, budgetPeriodBounds, budgetPeriods, type LimitScope } from "@gateway/contracts";
import { type SQL, sql } from "drizzle-orm";
import { isoDay, type PeriodSpend } from "../costing/spend-totals.ts";
import { picoFromParts, picoToUsd } from "../money.ts";
import { queryRows } from "../sql-rows.ts";
import type { SqliteDb } from "./sqlite-db.ts";

/** Whole micro-dollars of pico-dollars, rounded down (toward minus infinity, as `floor`). */
const floorMicros = (p: bigint) => Number(p / 1_000_000n - (p < 0n && p % 1_000_000n !== 0n ? 1n : 0n));

/** `periodSpend` (costing/spend-totals.ts) on SQLite: days are `YYYY-MM-DD` text, money pico-dollars. */
export async function periodSpendSqlite(db: SqliteDb, scopes: SQL, now: Date): Promise<PeriodSpend[]> {
  const periods = sql.join(
    budgetPeriods.map((period) => {
      const { start, end } = budgetPeriodBounds(period, now);
      return sql`(${period}, ${isoDay(start)}, ${isoDay(end)})`;
    }),
    sql`, `,
  );
  const managed = sql`filter (where d.mode = 'managed')`;
  const rows = await queryRows<Record<string, unknown>>(
    db,
    sql`
    with wanted as (select distinct scope, scope_id from (${scopes}) w),
    periods(period, first_day, end_day) as (values ${periods})
    select w.scope, w.scope_id, p.period, p.first_day as period_start,
           coalesce(sum(d.customer_cost_usd / 1000000) ${managed}, 0) as managed_micros,
           coalesce(sum(d.customer_cost_usd % 1000000) ${managed}, 0) as managed_rest,
           coalesce(sum(d.customer_cost_usd / 1000000), 0) as all_micros,
           coalesce(sum(d.customer_cost_usd % 1000000), 0) as all_rest
    from wanted w
    cross join periods p
    left join spend_daily d
      on d.scope = w.scope and d.scope_id = w.scope_id and d.day >= p.first_day and d.day < p.end_day
    group by 1, 2, 3, 4
    order by 1, 2, 3`,
  );
  return rows.map((r) => {
    const managedPico = picoFromParts(r.managed_micros, r.managed_rest);
    const allPico = picoFromParts(r.all_micros, r.all_rest);
    return {
      scope: r.scope as LimitScope,
      scopeId: String(r.scope_id),
      period: r.period as BudgetPeriod,
      periodStart: String(r.period_start),
      managedUsd: picoToUsd(managedPico),
      allUsd: picoToUsd(allPico),
      managedMicros: floorMicros(managedPico),
      allMicros: floorMicros(allPico),
    };
  });
}
