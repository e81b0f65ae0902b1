import type { Logger } from "@gateway/contracts";
import { createPartitionsAhead, type Db, pruneCalls } from "@gateway/db";
import { type Repeating, repeatEvery } from "@gateway/runtime";

/**
 * The retention job of call rows and their rollups, at start and every `everyMs`: the
 * `calls` partitions of the coming days made ahead (PostgreSQL), then what each org no longer
 * keeps removed (`pruneCalls`). Replicas may run it side by side: every step is idempotent.
 */
export function startCallsRetention(db: Db, log: Logger, everyMs: number): Repeating {
  return repeatEvery(everyMs, "retention of calls", log, async () => {
    const now = new Date();
    const created = await createPartitionsAhead(db, "calls", now);
    const pruned = await pruneCalls(db, now);
    log.info("retention: calls", {
      partitions_created: created,
      partitions_dropped: pruned.droppedPartitions,
      calls_deleted: pruned.deletedCalls,
      rollups_deleted: pruned.deletedRollups,
      minute_rollups_deleted: pruned.deletedMinuteRollups,
      latency_rows_deleted: pruned.deletedLatencyRows,
    });
  });
}
