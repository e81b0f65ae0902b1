import { type BudgetPeriod, budgetPeriodBounds, type LimitScope } from "@gateway/contracts";

/** Where a scope's spend for the period holding `at` is kept; the same in process and in Redis. */
export function spendKey(scope: LimitScope, id: string, period: BudgetPeriod, periodStart: string): string {
  return `${scope}:${id}:${period}:${periodStart}`;
}

/** The last period seen of each kind: every budgeted call asks, and it changes once a day. */
const lastPeriods = new Map<BudgetPeriod, { start: string; startsAt: number; endsAt: number }>();

/** The period holding `at`: its `YYYY-MM-DD` start and the milliseconds until it ends. */
export function currentPeriod(period: BudgetPeriod, at: number): { start: string; endsInMs: number } {
  let last = lastPeriods.get(period);
  if (!last || at < last.startsAt || at >= last.endsAt) {
    const bounds = budgetPeriodBounds(period, new Date(at));
    last = {
      start: bounds.start.toISOString().slice(0, 10),
      startsAt: bounds.start.getTime(),
      endsAt: bounds.end.getTime(),
    };
    lastPeriods.set(period, last);
  }
  return { start: last.start, endsInMs: last.endsAt - at };
}
