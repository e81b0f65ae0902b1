import { count, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { inJsonList, insertJsonRows } from "../json-rows.ts";
import { calls } from "../schema/calls.ts";
import { addToRollups } from "./measures.ts";

export type CallInsert = typeof calls.$inferInsert;

/** `c.request_id in (...)` for raw SQL over `calls c`. */
export function requestIdIn(ids: readonly string[]): SQL {
  return inJsonList(sql`c.request_id`, ids);
}

/**
 * Inserts call rows, idempotent by request id, and adds exactly the rows it inserted to the
 * hourly rollups in the same transaction. Returns the ids that were new.
 */
export async function recordCalls(db: Db, rows: CallInsert[]): Promise<string[]> {
  if (rows.length === 0) return [];
  return db.transaction(async (tx) => {
    const ids = await insertJsonRows(tx, calls, rows, "requestId");
    if (ids.length > 0) await tx.execute(addToRollups(requestIdIn(ids)));
    return ids;
  });
}

/** Ids of calls still waiting for costing (their job was lost, e.g. by a crash), oldest first. */
export async function pendingPricingIds(db: Db, limit: number): Promise<string[]> {
  const rows = await db
    .select({ requestId: calls.requestId })
    .from(calls)
    .where(inArray(calls.unpricedReason, ["pricing_pending"]))
    .orderBy(calls.receivedAt)
    .limit(limit);
  return rows.map((r) => r.requestId);
}

/** How many calls wait for their pricing job (served by the partial index on them). */
export async function countPricingPending(db: Db): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(calls)
    .where(eq(calls.unpricedReason, "pricing_pending"));
  return row?.n ?? 0;
}

/**
 * Recomputes the rollups from the calls (repair, or after a bulk load that bypassed
 * `recordCalls`). Holds the rollup table's rows for the duration of one transaction.
 */
export async function rebuildRollups(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`delete from call_rollups_hourly`);
    await tx.execute(addToRollups(sql`true`));
  });
}
