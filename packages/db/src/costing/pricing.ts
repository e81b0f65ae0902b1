import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { inTransaction, isSqlite } from "../dialect.ts";
import { priceCallsSqlite } from "../sqlite/pricing.ts";
import { priceCallsPostgres } from "./pricing-postgres.ts";
import { type ReceivedWithin, requestIdIn } from "./record-calls.ts";

/**
 * Prices (or re-prices) the calls with usage that `scope` selects over `calls c`, and moves the
 * hourly rollups' cost and the daily spend of each call's key, project and workload by exactly
 * the change, in one transaction: budgets then read a spend that always equals the calls' cost.
 *
 * The price of a call is the row for its served model with the latest `effective_from` at or
 * before the call's `received_at`. Money stays exact on both stores (no division, no float):
 *   uncached_input = input_tokens × input
 *   cache_write    = 5m writes × write_5m + 1h writes × write_1h
 *   cache_read     = cache_read_input_tokens × read
 *   output         = output_tokens × output            (reasoning/thinking is inside output)
 *   customer_cost  = the sum of the four              (null when any part is: SQL's null arithmetic)
 * with prices per million tokens. Without a covering price the call is `unpriced` (`no_price`),
 * its cost null, never zero. Rows whose outcome would not change are left alone, so re-running
 * is cheap and idempotent. Returns how many calls changed.
 */
function priceCalls(db: Db, scope: SQL): Promise<number> {
  if (isSqlite(db)) return inTransaction(db, (tx) => priceCallsSqlite(tx as typeof db, scope));
  return priceCallsPostgres(db, scope);
}

/** Costing for freshly recorded calls (received `within` that range, when known). */
export function priceCallsById(
  db: Db,
  requestIds: readonly string[],
  within?: ReceivedWithin,
): Promise<number> {
  if (requestIds.length === 0) return Promise.resolve(0);
  return priceCalls(db, requestIdIn(db, requestIds, within));
}

/**
 * Re-prices every call served by `model`, after a price row for that model was added: the
 * costing worker's `costing.reprice-model` job, which the control plane queues. Calls that were
 * `no_price` become priced, and priced calls move to the newer price version when it now covers
 * them. One transaction over the model's calls: on a very large table it is long, fine for a
 * background job, never inside a request.
 */
export function repriceCallsFor(db: Db, model: string): Promise<number> {
  return priceCalls(db, sql`c.served_model = ${model}`);
}
