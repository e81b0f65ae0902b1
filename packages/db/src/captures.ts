import { and, asc, desc, eq, inArray, lt, or } from "drizzle-orm";
import type { Db } from "./client.ts";
import { insertJsonRows } from "./json-rows.ts";
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

/** Index rows for stored capture objects; a request id indexed already keeps its row. */
export async function indexCaptures(db: Db, rows: NewCaptureIndexRow[]): Promise<void> {
  await insertJsonRows(db, captureIndex, rows, "requestId");
}

/** Which of these request ids have a capture index row. */
export async function indexedCaptureIds(db: Db, requestIds: string[]): Promise<Set<string>> {
  if (requestIds.length === 0) return new Set();
  const rows = await db
    .select({ id: captureIndex.requestId })
    .from(captureIndex)
    .where(inArray(captureIndex.requestId, requestIds));
  return new Set(rows.map((r) => r.id));
}

/** Up to `limit` index rows of the scope, newest first, keyset-paged: those after `after` when given. */
export function captureIndexPage(
  db: Db,
  scope: CaptureListScope,
  after: CapturePosition | null,
  limit: number,
): Promise<CaptureIndexRow[]> {
  const older = after
    ? or(
        lt(captureIndex.uploadedAt, after.uploadedAt),
        and(eq(captureIndex.uploadedAt, after.uploadedAt), lt(captureIndex.requestId, after.requestId)),
      )
    : undefined;
  return db
    .select()
    .from(captureIndex)
    .where(
      and(
        eq(captureIndex.projectId, scope.projectId),
        scope.workloadId === undefined ? undefined : eq(captureIndex.workloadId, scope.workloadId),
        older,
      ),
    )
    .orderBy(desc(captureIndex.uploadedAt), desc(captureIndex.requestId))
    .limit(limit);
}

/** The project's index row of one request, if it has a capture. */
export async function findCaptureIndexRow(
  db: Db,
  projectId: string,
  requestId: string,
): Promise<CaptureIndexRow | undefined> {
  const [row] = await db
    .select()
    .from(captureIndex)
    .where(and(eq(captureIndex.projectId, projectId), eq(captureIndex.requestId, requestId)));
  return row;
}

/** When the project's oldest capture was uploaded; null when it has none. */
export async function oldestCaptureUpload(db: Db, projectId: string): Promise<Date | null> {
  const [oldest] = await db
    .select({ uploadedAt: captureIndex.uploadedAt })
    .from(captureIndex)
    .where(eq(captureIndex.projectId, projectId))
    .orderBy(asc(captureIndex.uploadedAt))
    .limit(1);
  return oldest?.uploadedAt ?? null;
}
