import { desc, inArray } from "drizzle-orm";
import type { Db } from "../client.ts";
import { builder } from "../dialect.ts";
import { addJsonRows } from "../json-rows.ts";
import { picoToUsd, usdToPico } from "../money.ts";
import { spendDaily } from "../schema/limits.ts";
import type { prices } from "../schema/prices.ts";
import { noNul } from "../sql-rows.ts";
import { costOf } from "./cost-math.ts";
import type { CallInsert } from "./record-calls.ts";

/**
 * The calls of `rows` waiting for their first costing (`pricing_pending`), priced before they are
 * inserted, inside the caller's transaction: the all-in-one process's way (`recordCallBatch`). The
 * outcome is what `priceCallsById` makes of the same calls once inserted (the price row of the
 * served model with the latest `effective_from` at or before the call's `received_at`, the cost
 * exact in BigInt pico-dollars: `cost-math.ts`), without reading the calls back and updating
 * them: pricing them that way was ~40 % of what storing a call cost the process
 * (`pnpm bench:store`). Other rows are returned as they came. `test/price-at-insert.test.ts` holds
 * the two ways equal on both stores.
 */
export async function priceBeforeInsert(tx: Db, rows: CallInsert[], now: Date): Promise<CallInsert[]> {
  const pending = (row: CallInsert) => row.unpricedReason === "pricing_pending" && row.inputTokens != null;
  if (!rows.some(pending)) return rows;
  const models = new Set(rows.filter(pending).flatMap((r) => (r.servedModel ? [noNul(r.servedModel)] : [])));
  const versions = await priceVersions(tx, [...models]);
  return rows.map((row) => {
    if (!pending(row)) return row;
    const price = row.servedModel
      ? versions.get(noNul(row.servedModel))?.find((p) => p.effectiveFrom <= row.receivedAt)
      : undefined;
    const cost = costOf({
      input_tokens: row.inputTokens ?? null,
      w5m: row.cacheCreation5mInputTokens ?? null,
      w1h: row.cacheCreation1hInputTokens ?? null,
      read: row.cacheReadInputTokens ?? null,
      output: row.outputTokens ?? null,
      p_in: price?.inputUsdPerMtok ?? null,
      p_w5m: price?.cacheWrite5mUsdPerMtok ?? null,
      p_w1h: price?.cacheWrite1hUsdPerMtok ?? null,
      p_read: price?.cacheReadUsdPerMtok ?? null,
      p_out: price?.outputUsdPerMtok ?? null,
    });
    return {
      ...row,
      pricingStatus: price ? "priced" : "unpriced",
      unpricedReason: price ? null : "no_price",
      priceId: price?.id ?? null,
      pricedAt: price ? now : null,
      repricedAt: null,
      repricedFromPriceId: null,
      uncachedInputUsd: usd(cost.uncached),
      cacheWriteUsd: usd(cost.write),
      cacheReadUsd: usd(cost.read),
      outputUsd: usd(cost.output),
      customerCostUsd: usd(cost.total),
    };
  });
}

const usd = (pico: bigint | null) => (pico === null ? null : picoToUsd(pico));

/** Every price row of these models, by model, each model's newest first. */
async function priceVersions(tx: Db, models: string[]) {
  const byModel = new Map<string, (typeof prices.$inferSelect)[]>();
  if (models.length === 0) return byModel;
  const { orm, t } = builder(tx);
  const rows = await orm
    .select()
    .from(t.prices)
    .where(inArray(t.prices.model, models))
    .orderBy(desc(t.prices.effectiveFrom));
  for (const row of rows) {
    const versions = byModel.get(row.model);
    if (versions) versions.push(row);
    else byModel.set(row.model, [row]);
  }
  return byModel;
}

/**
 * Adds the cost of newly inserted, priced calls to `spend_daily`, in each scope of the call (its
 * key, project and workload) by UTC day and mode, as pricing does for the calls it prices.
 */
export async function addToSpend(tx: Db, rows: CallInsert[]): Promise<void> {
  const sums = new Map<
    string,
    { scope: "api_key" | "project" | "workload"; scopeId: string; day: string; mode: string; pico: bigint }
  >();
  for (const row of rows) {
    if (row.customerCostUsd == null) continue;
    const pico = usdToPico(row.customerCostUsd);
    const day = row.receivedAt.toISOString().slice(0, 10);
    for (const [scope, id] of [
      ["api_key", row.apiKeyId],
      ["project", row.projectId],
      ["workload", row.workloadId],
    ] as const) {
      const scopeId = noNul(id);
      const key = `${scope}\0${scopeId}\0${day}\0${row.mode}`;
      const sum = sums.get(key) ?? { scope, scopeId, day, mode: noNul(row.mode), pico: 0n };
      sum.pico += pico;
      sums.set(key, sum);
    }
  }
  await addJsonRows(
    tx,
    spendDaily,
    [...sums.values()].map(({ pico, ...key }) => ({ ...key, customerCostUsd: picoToUsd(pico) })),
    ["scope", "scope_id", "day", "mode"],
    ["customer_cost_usd"],
  );
}
