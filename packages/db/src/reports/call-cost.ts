import type { UnpricedReason } from "@gateway/contracts";
import { and, eq, getTableColumns, or, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { query } from "../dialect.ts";
import type { calls as callsTable } from "../schema/calls.ts";
import { sqlFor } from "../sql-dialect.ts";
import { usd } from "./format.ts";

export interface CallCost {
  org_id: string;
  request_id: string;
  pricing_status: "priced" | "unpriced";
  unpriced_reason: UnpricedReason | null;
  customer_cost_usd: number | null;
  cost_categories: {
    uncached_input_usd: number | null;
    cache_write_usd: number | null;
    cache_read_usd: number | null;
    output_usd: number | null;
  };
  usage: {
    input_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
    output_tokens: number;
  } | null;
}

const money = (v: string | null) => (v === null ? null : usd(v));

/** Every column of a call row, its money read exactly on either store (see `exactMoney`). */
export function callWithExactMoney(db: Db, calls: typeof callsTable) {
  const exact = sqlFor(db).exactMoney;
  return {
    ...getTableColumns(calls),
    uncachedInputUsd: exact(calls.uncachedInputUsd),
    cacheWriteUsd: exact(calls.cacheWriteUsd),
    cacheReadUsd: exact(calls.cacheReadUsd),
    outputUsd: exact(calls.outputUsd),
    customerCostUsd: exact(calls.customerCostUsd),
  };
}

/**
 * The cost of one of the org's calls, found by our request id, the upstream request id, or the
 * upstream response/message id (in that order of preference; the newest call when an upstream id
 * repeats, the greatest request id among calls of the same instant). Another org's call is simply
 * not found.
 */
export async function callCost(db: Db, orgId: string, correlationId: string): Promise<CallCost | null> {
  const [row] = await query(db, (orm, { calls }) =>
    orm
      .select(callWithExactMoney(db, calls))
      .from(calls)
      // the org in each arm: SQLite (no ANALYZE) then looks each id up by its own index, where
      // `org and (a or b or c)` walked every call of the org (5 s at 21M calls)
      .where(
        or(
          and(eq(calls.orgId, orgId), eq(calls.requestId, correlationId)),
          sqlFor(db).withUpstreamId(calls, orgId, correlationId),
        ),
      )
      .orderBy(
        sql`case when ${calls.requestId} = ${correlationId} then 0 when ${calls.upstreamRequestId} = ${correlationId} then 1 else 2 end`,
        sql`${calls.receivedAt} desc`,
        // two calls at the same instant: one answer on both stores, not whichever row comes first
        sql`${calls.requestId} desc`,
      )
      .limit(1),
  );
  if (!row) return null;
  const priced = row.pricingStatus === "priced";
  return {
    org_id: row.orgId,
    request_id: row.requestId,
    pricing_status: row.pricingStatus,
    unpriced_reason: priced ? null : (row.unpricedReason ?? "pricing_pending"),
    customer_cost_usd: priced ? money(row.customerCostUsd) : null,
    cost_categories: {
      uncached_input_usd: priced ? money(row.uncachedInputUsd) : null,
      cache_write_usd: priced ? money(row.cacheWriteUsd) : null,
      cache_read_usd: priced ? money(row.cacheReadUsd) : null,
      output_usd: priced ? money(row.outputUsd) : null,
    },
    usage:
      row.inputTokens === null
        ? null
        : {
            input_tokens: row.inputTokens,
            cache_read_input_tokens: row.cacheReadInputTokens ?? 0,
            cache_creation_input_tokens: row.cacheCreationInputTokens ?? 0,
            output_tokens: row.outputTokens ?? 0,
          },
  };
}
