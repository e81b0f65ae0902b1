import type { Logger } from "@gateway/contracts";
import { openKafkaBus } from "@gateway/engines/kafka";
import { openPostgres } from "@gateway/engines/postgres";
import { openS3BlobStore } from "@gateway/engines/s3";
import type { CaptureWriterDeps } from "./capture-writer.ts";
import type { CaptureWriterEnv } from "./env.ts";

/** Env → adapters. The tables are the control plane's to migrate; start it first. */
export async function captureWriterDeps(
  env: CaptureWriterEnv,
  log: Logger,
): Promise<{ deps: CaptureWriterDeps; close(): Promise<void> }> {
  const store = await openPostgres(env);
  const blobs = await openS3BlobStore(env, log);
  const bus = await openKafkaBus(env, log, "capture-writer", {
    minBytes: env.GATEWAY_CAPTURE_FETCH_MIN_BYTES,
    maxWaitMs: env.GATEWAY_CAPTURE_FETCH_MAX_WAIT_MS,
  });
  return {
    deps: { db: store.db, blobs, bus, log, retentionEveryMs: env.GATEWAY_RETENTION_EVERY_MS },
    async close() {
      // leaving the group commits nothing new: offsets were committed after each handled batch
      await bus.close();
      blobs.close();
      await store.close();
    },
  };
}
