import { type BudgetPeriod, budgetPeriodBounds, type LimitScope } from "@gateway/contracts";

/** Where a scope's spend for the period holding `at` is kept; the same in process and in Redis. */
export function spendKey(scope: LimitScope, id: string, period: BudgetPeriod, periodStart: string): string {
  return `${scope}:${id}:${period}:${periodStart}`;
}

/** The period holding `at`: its `YYYY-MM-DD` start and the milliseconds until it ends. */
export function currentPeriod(period: BudgetPeriod, at: number): { start: string; endsInMs: number } {
  const bounds = budgetPeriodBounds(period, new Date(at));
  return { start: bounds.start.toISOString().slice(0, 10), endsInMs: bounds.end.getTime() - at };
}
