import { count, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { inTransaction, query } from "../dialect.ts";
import { inJsonList, insertJsonRows } from "../json-rows.ts";
import { withDayPartitions } from "../retention/day-partitions.ts";
import { calls } from "../schema/calls.ts";
import { sqlFor } from "../sql-dialect.ts";
import { queryRows } from "../sql-rows.ts";
import { addToLatency } from "./latency.ts";
import { addToRollups, rollupTables } from "./measures.ts";
import { addRowsToRollups } from "./rollups-in-hand.ts";

export type CallInsert = typeof calls.$inferInsert;

/** When a set of calls was received, from the first to the last (both included). */
export interface ReceivedWithin {
  from: Date;
  to: Date;
}

/**
 * `c.request_id in (...)` for raw SQL over `calls c`, within `within` when given: on PostgreSQL,
 * a lookup by request id alone reads every day's partition (~40 ms for 256 ids over 98 days,
 * against ~1 ms for one day).
 */
export function requestIdIn(db: Db, ids: readonly string[], within?: ReceivedWithin): SQL {
  const listed = inJsonList(db, sql`c.request_id`, ids);
  if (!within) return listed;
  const d = sqlFor(db);
  return sql`${listed} and c.received_at >= ${d.ts(within.from)} and c.received_at <= ${d.ts(within.to)}`;
}

/** The time range of these calls' `received_at`. */
export function receivedWithin(times: readonly Date[]): ReceivedWithin {
  const ms = times.map((t) => t.getTime());
  return {
    from: new Date(ms.reduce((a, b) => Math.min(a, b))),
    to: new Date(ms.reduce((a, b) => Math.max(a, b))),
  };
}

/**
 * Inserts call rows, idempotent by request id, and adds exactly the rows it inserted to the
 * hourly and per-minute rollups and the latency histograms in the same transaction (one
 * transaction per batch: never a commit per call), summed from the rows in hand (`rollups-in-hand.ts`).
 * Returns the ids that were new.
 */
export async function recordCalls(db: Db, rows: CallInsert[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const record = async () => (await inTransaction(db, (tx) => insertCalls(tx, rows))).map((r) => r.requestId);
  return withDayPartitions(db, "calls", () => rows.map((r) => r.receivedAt), record);
}

/** `recordCalls`' work inside the caller's transaction: the rows, their rollups and histograms; the rows that were new. */
export async function insertCalls(tx: Db, rows: CallInsert[]): Promise<CallInsert[]> {
  const inserted = rowsInserted(rows, await insertJsonRows(tx, calls, rows, "requestId"));
  await addRowsToRollups(tx, inserted);
  return inserted;
}

/** The rows whose ids went in, each once: an id twice in a batch was inserted by its first row. */
function rowsInserted(rows: CallInsert[], ids: string[]): CallInsert[] {
  if (ids.length === rows.length) return rows;
  const left = new Set(ids);
  return rows.filter((row) => left.delete(row.requestId));
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
 * Recomputes the rollups and latency histograms from the calls (repair, or after a bulk load that bypassed
 * `recordCalls`). Holds the rollup table's rows for the duration of one transaction.
 */
export async function rebuildRollups(db: Db): Promise<void> {
  await inTransaction(db, async (tx) => {
    for (const table of rollupTables) {
      await queryRows(tx, sql`delete from ${sql.raw(table.name)}`);
      await queryRows(tx, addToRollups(sqlFor(tx), table, sql`true`));
    }
    await queryRows(tx, sql`delete from call_latency_hourly`);
    await queryRows(tx, addToLatency(sqlFor(tx), sql`true`));
  });
}
