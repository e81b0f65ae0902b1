import { count, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { inTransaction, query } from "../dialect.ts";
import { inJsonList, insertJsonRows } from "../json-rows.ts";
import { withDayPartitions } from "../retention/day-partitions.ts";
import { calls } from "../schema/calls.ts";
import { sqlFor } from "../sql-dialect.ts";
import { queryRows } from "../sql-rows.ts";
import { addToRollups } from "./measures.ts";

export type CallInsert = typeof calls.$inferInsert;

/** `c.request_id in (...)` for raw SQL over `calls c`. */
export function requestIdIn(db: Db, ids: readonly string[]): SQL {
  return inJsonList(db, sql`c.request_id`, ids);
}

/**
 * Inserts call rows, idempotent by request id, and adds exactly the rows it inserted to the
 * hourly rollups in the same transaction (one transaction per batch: never a commit per call).
 * Returns the ids that were new.
 */
export async function recordCalls(db: Db, rows: CallInsert[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const times = rows.map((r) => r.receivedAt.getTime());
  const [first, last] = [
    new Date(times.reduce((a, b) => Math.min(a, b))),
    new Date(times.reduce((a, b) => Math.max(a, b))),
  ];
  const record = () =>
    inTransaction(db, async (tx) => {
      const ids = await insertJsonRows(tx, calls, rows, "requestId");
      if (ids.length === 0) return ids;
      // The batch's time range lets PostgreSQL read only its days' partitions for the new rows.
      const d = sqlFor(tx);
      const inBatch = sql`${requestIdIn(tx, ids)} and c.received_at >= ${d.ts(first)} and c.received_at <= ${d.ts(last)}`;
      await queryRows(tx, addToRollups(d, inBatch));
      return ids;
    });
  return withDayPartitions(db, "calls", () => rows.map((r) => r.receivedAt), record);
}

/** Ids of calls still waiting for costing (their job was lost, e.g. by a crash), oldest first. */
export async function pendingPricingIds(db: Db, limit: number): Promise<string[]> {
  const rows = await query(db, (orm, t) =>
    orm
      .select({ requestId: t.calls.requestId })
      .from(t.calls)
      .where(eq(t.calls.unpricedReason, "pricing_pending"))
      .orderBy(t.calls.receivedAt)
      .limit(limit),
  );
  return rows.map((r) => r.requestId);
}

/** How many calls wait for their pricing job (served by the partial index on them). */
export async function countPricingPending(db: Db): Promise<number> {
  const [row] = await query(db, (orm, t) =>
    orm.select({ n: count() }).from(t.calls).where(eq(t.calls.unpricedReason, "pricing_pending")),
  );
  return row?.n ?? 0;
}

/**
 * Recomputes the rollups from the calls (repair, or after a bulk load that bypassed
 * `recordCalls`). Holds the rollup table's rows for the duration of one transaction.
 */
export async function rebuildRollups(db: Db): Promise<void> {
  await inTransaction(db, async (tx) => {
    await queryRows(tx, sql`delete from call_rollups_hourly`);
    await queryRows(tx, addToRollups(sqlFor(tx), sql`true`));
  });
}
