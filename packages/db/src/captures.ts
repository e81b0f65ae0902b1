import { and, asc, desc, eq, inArray, lt, or } from "drizzle-orm";
import type { Db } from "./client.ts";
import { inTransaction, query } from "./dialect.ts";
import { insertJsonRows } from "./json-rows.ts";
import { withDayPartitions } from "./retention/day-partitions.ts";
import { captureIndex } from "./schema/index.ts";

export type CaptureIndexRow = typeof captureIndex.$inferSelect;
export type NewCaptureIndexRow = typeof captureIndex.$inferInsert;

/** Where a capture listing stands: the last row it returned, in (uploaded_at, request_id) order. */
export interface CapturePosition {
  uploadedAt: Date;
  requestId: string;
}

/** A capture listing's rows: a project's, or one of its workloads' when `workloadId` is given. */
export interface CaptureListScope {
  projectId: string;
  workloadId?: string;
}

/** Index rows for stored captures, in one transaction; a request id indexed already keeps its row. */
export async function indexCaptures(db: Db, rows: NewCaptureIndexRow[]): Promise<void> {
  if (rows.length === 0) return;
  await withDayPartitions(
    db,
    "capture_index",
    () => rows.map((r) => r.receivedAt),
    () => inTransaction(db, (tx) => insertJsonRows(tx, captureIndex, rows, "requestId")),
  );
}

/** The object each of these request ids is indexed in, for those that have a capture index row. */
export async function indexedCaptureKeys(db: Db, requestIds: string[]): Promise<Map<string, string>> {
  if (requestIds.length === 0) return new Map();
  const rows = await query(db, (orm, t) =>
    orm
      .select({ id: t.captureIndex.requestId, key: t.captureIndex.key })
      .from(t.captureIndex)
      .where(inArray(t.captureIndex.requestId, requestIds)),
  );
  return new Map(rows.map((r) => [r.id, r.key]));
}

/** Up to `limit` index rows of the scope, newest first, keyset-paged: those after `after` when given. */
export async function captureIndexPage(
  db: Db,
  scope: CaptureListScope,
  after: CapturePosition | null,
  limit: number,
): Promise<CaptureIndexRow[]> {
  return query(db, (orm, { captureIndex: c }) => {
    const older = after
      ? or(
          lt(c.uploadedAt, after.uploadedAt),
          and(eq(c.uploadedAt, after.uploadedAt), lt(c.requestId, after.requestId)),
        )
      : undefined;
    return orm
      .select()
      .from(c)
      .where(
        and(
          eq(c.projectId, scope.projectId),
          scope.workloadId === undefined ? undefined : eq(c.workloadId, scope.workloadId),
          older,
        ),
      )
      .orderBy(desc(c.uploadedAt), desc(c.requestId))
      .limit(limit);
  });
}

/** The project's index row of one request, if it has a capture. */
export async function findCaptureIndexRow(
  db: Db,
  projectId: string,
  requestId: string,
): Promise<CaptureIndexRow | undefined> {
  const [row] = await query(db, (orm, t) =>
    orm
      .select()
      .from(t.captureIndex)
      .where(and(eq(t.captureIndex.projectId, projectId), eq(t.captureIndex.requestId, requestId))),
  );
  return row;
}

/** When the project's oldest capture was uploaded; null when it has none. */
export async function oldestCaptureUpload(db: Db, projectId: string): Promise<Date | null> {
  const [oldest] = await query(db, (orm, t) =>
    orm
      .select({ uploadedAt: t.captureIndex.uploadedAt })
      .from(t.captureIndex)
      .where(eq(t.captureIndex.projectId, projectId))
      .orderBy(asc(t.captureIndex.uploadedAt))
      .limit(1),
  );
  return oldest?.uploadedAt ?? null;
}
