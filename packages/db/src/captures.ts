import { inArray } from "drizzle-orm";
import type { Db } from "./client.ts";
import { captureIndex } from "./schema/index.ts";

/** Which of these request ids have a capture index row. */
export async function indexedCaptureIds(db: Db, requestIds: string[]): Promise<Set<string>> {
  if (requestIds.length === 0) return new Set();
  const rows = await db
    .select({ id: captureIndex.requestId })
    .from(captureIndex)
    .where(inArray(captureIndex.requestId, requestIds));
  return new Set(rows.map((r) => r.id));
}
