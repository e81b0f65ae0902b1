import type { UnpricedReason } from "@gateway/contracts";
import { and, asc, eq, gt } from "drizzle-orm";
import type { Db } from "../client.ts";
import { query } from "../dialect.ts";
import { callWithExactMoney } from "./call-cost.ts";
import { type CallLogItem, callLogPage } from "./call-log.ts";
import { usd } from "./format.ts";

/** One token class of a priced call: its tokens times its rate per million tokens. */
interface CostLine {
  tokens: number;
  usd_per_mtok: string;
  usd: number;
}

/** The price row that priced a call, and until when it applied (the next row's start; null: still does). */
interface PriceEntry {
  id: string;
  model: string;
  effective_from: string;
  effective_until: string | null;
  input_usd_per_mtok: string;
  cache_write_5m_usd_per_mtok: string;
  cache_write_1h_usd_per_mtok: string;
  cache_read_usd_per_mtok: string;
  output_usd_per_mtok: string;
}

interface CallProvenance {
  pricing_status: "priced" | "unpriced";
  unpriced_reason: UnpricedReason | null;
  customer_cost_usd: number | null;
  priced_at: string | null;
  price: PriceEntry | null;
  /** Null while unpriced. A cache write is two token classes (5-minute and 1-hour TTL), one category. */
  lines: {
    uncached_input: CostLine;
    cache_write: {
      tokens_5m: number;
      usd_per_mtok_5m: string;
      tokens_1h: number;
      usd_per_mtok_1h: string;
      usd: number;
    };
    cache_read: CostLine;
    output: CostLine;
  } | null;
  repriced: { at: string; from_price_id: string | null } | null;
}

export interface CallDetail extends CallLogItem {
  api_key_id: string;
  tags: Record<string, string>;
  error_type: string | null;
  refused_by: string | null;
  fallback_reason: string | null;
  upstream_request_id: string | null;
  upstream_response_id: string | null;
  cache_creation_5m_input_tokens: number | null;
  cache_creation_1h_input_tokens: number | null;
  cost: CallProvenance;
}

const money = (v: string | null) => (v === null ? 0 : usd(v));

/**
 * One call of the project with its cost's provenance: the price row that priced it and the
 * arithmetic (tokens x rate per million, per token class) that gave each category, read from the
 * same columns the call-cost record and the reports sum. Null when the project has no such call.
 */
export async function callDetail(db: Db, projectId: string, requestId: string): Promise<CallDetail | null> {
  const { items } = await callLogPage(db, { projectId, requestId }, null, 1);
  const item = items[0];
  if (!item) return null;
  const [row] = await query(db, (orm, { calls }) =>
    orm.select(callWithExactMoney(db, calls)).from(calls).where(eq(calls.requestId, requestId)),
  );
  if (!row) return null;
  const priced = row.pricingStatus === "priced";
  const price = priced && row.priceId ? await priceEntry(db, row.priceId) : null;
  const tokens = (n: number | null) => n ?? 0;
  const line = (n: number | null, rate: string, cost: string | null) => ({
    tokens: tokens(n),
    usd_per_mtok: rate,
    usd: money(cost),
  });
  return {
    ...item,
    api_key_id: row.apiKeyId,
    tags: row.tags,
    error_type: row.errorType,
    refused_by: row.refusedBy,
    fallback_reason: row.fallbackReason,
    upstream_request_id: row.upstreamRequestId,
    upstream_response_id: row.upstreamResponseId,
    cache_creation_5m_input_tokens: row.cacheCreation5mInputTokens,
    cache_creation_1h_input_tokens: row.cacheCreation1hInputTokens,
    cost: {
      pricing_status: row.pricingStatus,
      unpriced_reason: priced ? null : (row.unpricedReason ?? "pricing_pending"),
      customer_cost_usd: item.customer_cost_usd,
      priced_at: priced ? (row.pricedAt?.toISOString() ?? null) : null,
      price,
      lines: price
        ? {
            uncached_input: line(row.inputTokens, price.input_usd_per_mtok, row.uncachedInputUsd),
            cache_write: {
              tokens_5m: tokens(row.cacheCreation5mInputTokens),
              usd_per_mtok_5m: price.cache_write_5m_usd_per_mtok,
              tokens_1h: tokens(row.cacheCreation1hInputTokens),
              usd_per_mtok_1h: price.cache_write_1h_usd_per_mtok,
              usd: money(row.cacheWriteUsd),
            },
            cache_read: line(row.cacheReadInputTokens, price.cache_read_usd_per_mtok, row.cacheReadUsd),
            output: line(row.outputTokens, price.output_usd_per_mtok, row.outputUsd),
          }
        : null,
      repriced: row.repricedAt
        ? { at: row.repricedAt.toISOString(), from_price_id: row.repricedFromPriceId }
        : null,
    },
  };
}

async function priceEntry(db: Db, priceId: string): Promise<PriceEntry | null> {
  const [p] = await query(db, (orm, t) => orm.select().from(t.prices).where(eq(t.prices.id, priceId)));
  if (!p) return null;
  const [next] = await query(db, (orm, t) =>
    orm
      .select({ from: t.prices.effectiveFrom })
      .from(t.prices)
      .where(and(eq(t.prices.model, p.model), gt(t.prices.effectiveFrom, p.effectiveFrom)))
      .orderBy(asc(t.prices.effectiveFrom))
      .limit(1),
  );
  return {
    id: p.id,
    model: p.model,
    effective_from: p.effectiveFrom.toISOString(),
    effective_until: next ? next.from.toISOString() : null,
    input_usd_per_mtok: p.inputUsdPerMtok,
    cache_write_5m_usd_per_mtok: p.cacheWrite5mUsdPerMtok,
    cache_write_1h_usd_per_mtok: p.cacheWrite1hUsdPerMtok,
    cache_read_usd_per_mtok: p.cacheReadUsdPerMtok,
    output_usd_per_mtok: p.outputUsdPerMtok,
  };
}
