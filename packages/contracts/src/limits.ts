import { z } from "zod";

/** What a limit is set on. A call is held to the limits of its key, project and workload at once. */
export const limitScopes = ["api_key", "project", "workload"] as const;
export type LimitScope = (typeof limitScopes)[number];

/** The limits one scope can carry; a refused call names one of them (`refused_by`). */
export const limitNames = ["requests_per_minute", "tokens_per_minute", "max_concurrent", "budget"] as const;
export type LimitName = (typeof limitNames)[number];

/** A budget's period: a calendar day or month in UTC; spend starts again at its first instant. */
export const budgetPeriods = ["day", "month"] as const;
export type BudgetPeriod = (typeof budgetPeriods)[number];

/** `managed`: only calls served with the operator's credentials spend it; `all`: every priced call. */
export const budgetAppliesTo = ["managed", "all"] as const;
export type BudgetAppliesTo = (typeof budgetAppliesTo)[number];

/** Upper bound of every count limit: far beyond any real setting, and exact in Lua's doubles. */
const maxCount = 1_000_000_000;
const countLimit = z.number().int().min(1).max(maxCount).nullable();

/** US dollars as a decimal string with at most 6 decimals (whole micro-dollars), above zero. */
const usdAmount = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,6})?$/, 'a decimal string of US dollars with at most 6 decimals, e.g. "250.00"')
  .refine((usd) => usdToMicros(usd) > 0, "must be above zero");

export const budgetSchema = z
  .object({
    usd: usdAmount,
    period: z.enum(budgetPeriods),
    applies_to: z.enum(budgetAppliesTo),
  })
  .strict();
export type Budget = z.infer<typeof budgetSchema>;

/** The limits of one scope as the admin API reads and writes them; null means "no limit". */
export const limitsSchema = z
  .object({
    requests_per_minute: countLimit,
    tokens_per_minute: countLimit,
    max_concurrent: countLimit,
    budget: budgetSchema.nullable(),
  })
  .strict();
export type Limits = z.infer<typeof limitsSchema>;

/** A PUT body: each field given is set (null clears it); a field left out keeps its value. */
export const limitsUpdateSchema = limitsSchema.partial();
export type LimitsUpdate = z.infer<typeof limitsUpdateSchema>;

export const noLimits = (): Limits => ({
  requests_per_minute: null,
  tokens_per_minute: null,
  max_concurrent: null,
  budget: null,
});

/**
 * The limits as the gateway reads them from the config cache, inside the key, project and
 * workload entries; absent fields are not limited, and an entry without any has no `limits`.
 */
export interface LimitsEntry {
  rpm?: number;
  tpm?: number;
  concurrent?: number;
  budget?: { micros: number; period: BudgetPeriod; appliesTo: BudgetAppliesTo };
}

export function limitsEntry(limits: Limits): LimitsEntry | undefined {
  const entry: LimitsEntry = {};
  if (limits.requests_per_minute !== null) entry.rpm = limits.requests_per_minute;
  if (limits.tokens_per_minute !== null) entry.tpm = limits.tokens_per_minute;
  if (limits.max_concurrent !== null) entry.concurrent = limits.max_concurrent;
  if (limits.budget !== null) {
    entry.budget = {
      micros: usdToMicros(limits.budget.usd),
      period: limits.budget.period,
      appliesTo: limits.budget.applies_to,
    };
  }
  return Object.keys(entry).length > 0 ? entry : undefined;
}

/** Whole micro-dollars of a decimal string, exactly (no float on the way). */
export function usdToMicros(usd: string): number {
  const [whole = "0", fraction = ""] = usd.split(".");
  return Number(whole) * 1_000_000 + Number(fraction.padEnd(6, "0").slice(0, 6));
}

/** The decimal string of whole micro-dollars, with at least two decimals ("12.50", "0.000125"). */
export function microsToUsd(micros: number): string {
  const whole = Math.trunc(micros / 1_000_000);
  const fraction = String(micros % 1_000_000)
    .padStart(6, "0")
    .replace(/0{1,4}$/, "");
  return `${whole}.${fraction}`;
}

/** The first instant of the budget period holding `at`, and of the next one (UTC). */
export function budgetPeriodBounds(period: BudgetPeriod, at: Date): { start: Date; end: Date } {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  if (period === "month") return { start: new Date(Date.UTC(y, m, 1)), end: new Date(Date.UTC(y, m + 1, 1)) };
  const d = at.getUTCDate();
  return { start: new Date(Date.UTC(y, m, d)), end: new Date(Date.UTC(y, m, d + 1)) };
}

/**
 * A budget's spend so far in one period, as the costing worker publishes it for the gateway:
 * whole micro-dollars of priced cost, rounded down, for managed calls and for all calls.
 */
export interface SpendTotal {
  scope: LimitScope;
  scopeId: string;
  period: BudgetPeriod;
  /** `YYYY-MM-DD` of the period's first day. */
  periodStart: string;
  managedMicros: number;
  allMicros: number;
}
