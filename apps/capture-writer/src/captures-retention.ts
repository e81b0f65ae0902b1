import type { BlobStore } from "@gateway/blobstore";
import type { Logger } from "@gateway/contracts";
import { createPartitionsAhead, type Db, pruneCaptures } from "@gateway/db";
import { type Repeating, repeatEvery } from "@gateway/runtime";

/**
 * The retention job of captures, at start and every `everyMs`: the `capture_index` partitions of
 * the coming days made ahead (PostgreSQL), then the captures each org no longer keeps removed,
 * index rows and objects (`pruneCaptures`). Replicas may run it side by side: every step is
 * idempotent.
 */
export function startCapturesRetention(db: Db, blobs: BlobStore, log: Logger, everyMs: number): Repeating {
  return repeatEvery(everyMs, "retention of captures", log, async () => {
    const now = new Date();
    const created = await createPartitionsAhead(db, "capture_index", now);
    const pruned = await pruneCaptures(db, now, (keys) => blobs.delete(keys));
    log.info("retention: captures", {
      partitions_created: created,
      partitions_dropped: pruned.droppedPartitions,
      captures_deleted: pruned.deletedCaptures,
      objects_deleted: pruned.deletedObjects,
    });
  });
}
