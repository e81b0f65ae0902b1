import type { Db } from "../client.ts";
import { ratio, usd } from "./format.ts";
import { type TimeWindow, type WindowDim, windowTotals } from "./window.ts";
import { projectWorkloads } from "./workload-names.ts";

export const usageGroupKeys = ["workload", "model", "day"] as const;
export type UsageGroupKey = (typeof usageGroupKeys)[number];

const dimOf = { workload: "workload_id", model: "model", day: "day" } as const satisfies Record<
  UsageGroupKey,
  WindowDim
>;

export interface UsageGroup {
  workload_id: string | null;
  workload: string | null;
  model: string | null;
  day: string | null;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_pct: number;
  customer_cost_usd: number;
  /** Requests not (yet) priced: no usage, no price, or costing still pending. Not in the cost. */
  unpriced_requests: number;
  error_rate: number;
}

/**
 * Usage per group over the window. Tokens follow provider A's convention (input = uncached);
 * cache_read_pct = cache read / (input + cache read + cache write). The cost is the sum of the
 * same per-call costs the call-cost record shows, summed exactly and rounded once.
 */
export async function usageSummaryGroups(
  db: Db,
  window: TimeWindow,
  groupBy: readonly UsageGroupKey[],
): Promise<UsageGroup[]> {
  const dims = groupBy.map((k) => dimOf[k]);
  const [rows, names] = await Promise.all([
    windowTotals(db, window, dims),
    projectWorkloads(db, window.projectId),
  ]);
  const nameOf = new Map(names.map((w) => [w.id, w.name]));
  const groups = rows.map((row): UsageGroup => {
    const keys = row as Partial<Record<WindowDim, string>>;
    const prompt = row.inputTokens + row.cacheReadInputTokens + row.cacheCreationInputTokens;
    return {
      workload_id: keys.workload_id ?? null,
      workload: keys.workload_id === undefined ? null : (nameOf.get(keys.workload_id) ?? null),
      model: keys.model ? keys.model : null,
      day: keys.day ?? null,
      requests: row.requests,
      input_tokens: row.inputTokens,
      output_tokens: row.outputTokens,
      cache_read_input_tokens: row.cacheReadInputTokens,
      cache_creation_input_tokens: row.cacheCreationInputTokens,
      cache_read_pct: ratio(row.cacheReadInputTokens, prompt),
      customer_cost_usd: usd(row.customerCostUsd),
      unpriced_requests: row.requests - row.pricedRequests,
      error_rate: ratio(row.errors, row.requests),
    };
  });
  const text = (v: string | null) => v ?? "";
  return groups.sort(
    (x, y) =>
      text(x.day).localeCompare(text(y.day)) ||
      text(x.workload).localeCompare(text(y.workload)) ||
      text(x.model).localeCompare(text(y.model)),
  );
}
