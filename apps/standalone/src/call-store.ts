import type { BlobStore } from "@gateway/blobstore";
import type { EventBus } from "@gateway/bus";
import { startCapturesRetention, writeCaptureSegments } from "@gateway/capture-writer";
import type { Logger } from "@gateway/contracts";
import { startCostingWorker } from "@gateway/costing-worker";
import type { Db } from "@gateway/db";
import type { JobQueue } from "@gateway/jobs";
import type { LimitStore } from "@gateway/limits";
import type { Tracer } from "@gateway/tracing";

export interface CallStoreDeps {
  db: Db;
  blobs: BlobStore;
  bus: EventBus;
  jobs: JobQueue;
  log: Logger;
  tracer: Tracer | null;
  limits: LimitStore;
  retentionEveryMs: number;
}

/**
 * What the split deployment's capture writer and costing worker do, in the one process: one
 * consumer stores each batch of calls, its captures' segments first, then their index rows and the
 * call rows, priced, in one transaction (where the split deployment's two consumers and a pricing
 * job make four commits); the captures' retention runs beside it. Closing stops both.
 */
export async function startCallStore({ blobs, retentionEveryMs, ...deps }: CallStoreDeps) {
  const captures = startCapturesRetention(deps.db, blobs, deps.log, retentionEveryMs);
  const costing = await startCostingWorker({
    ...deps,
    retentionEveryMs,
    storeCaptures: (calls) => writeCaptureSegments(blobs, calls),
  });
  return {
    async close() {
      await costing.close();
      await captures.close();
    },
  };
}
