import { type AnyColumn, and, eq, inArray } from "drizzle-orm";
import type { CaptureIndexRow } from "../captures.ts";
import type { Db } from "../client.ts";
import { query } from "../dialect.ts";
import type { calls } from "../schema/calls.ts";

export type CallRow = typeof calls.$inferSelect;

/** Which stored rows to read: every condition given must hold (none given: all rows). */
export interface RowsWhere {
  requestIds?: readonly string[];
  workloadId?: string;
  projectId?: string;
}

/** The stored call rows, on either store, oldest first. */
export function callRows(db: Db, where: RowsWhere = {}): Promise<CallRow[]> {
  return query(db, (orm, t) =>
    orm.select().from(t.calls).where(matching(t.calls, where)).orderBy(t.calls.receivedAt, t.calls.requestId),
  );
}

/** The capture writer's index rows, on either store, oldest upload first. */
export function captureIndexRows(db: Db, where: RowsWhere = {}): Promise<CaptureIndexRow[]> {
  return query(db, (orm, t) =>
    orm
      .select()
      .from(t.captureIndex)
      .where(matching(t.captureIndex, where))
      .orderBy(t.captureIndex.uploadedAt, t.captureIndex.requestId),
  );
}

/** The condition `where` states, on a table that carries a call's ids. */
function matching(table: Record<"requestId" | "workloadId" | "projectId", AnyColumn>, where: RowsWhere) {
  return and(
    where.requestIds ? inArray(table.requestId, [...where.requestIds]) : undefined,
    where.workloadId ? eq(table.workloadId, where.workloadId) : undefined,
    where.projectId ? eq(table.projectId, where.projectId) : undefined,
  );
}
