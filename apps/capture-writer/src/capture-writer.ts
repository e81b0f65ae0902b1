import type { BlobStore } from "@gateway/blobstore";
import type { EventBus } from "@gateway/bus";
import { type CallEvent, callEventSchema, callsTopic, type Logger } from "@gateway/contracts";
import { captureIndex, type Db, insertJsonRows } from "@gateway/db";
import { captureEnvelope, captureKey } from "./capture-envelope.ts";

export interface CaptureWriterDeps {
  db: Db;
  blobs: BlobStore;
  bus: EventBus;
  log: Logger;
}

/**
 * `gateway.calls.v1` → capture object + index row. Idempotent by request id: the object write
 * is create-only and the index insert ignores a row that exists, so a redelivered batch changes
 * nothing. The object is written before its index row, so a listed capture is always readable.
 */
export async function startCaptureWriter({ db, blobs, bus, log }: CaptureWriterDeps): Promise<void> {
  await bus.subscribe({
    topic: callsTopic,
    group: "capture-writer",
    async handle(batch) {
      const events: CallEvent[] = [];
      for (const payload of batch) {
        const parsed = callEventSchema.safeParse(payload);
        if (parsed.success) events.push(parsed.data);
        else log.error("dropping malformed call event", { issues: parsed.error.issues.slice(0, 3) });
      }
      // The batch's objects are written side by side: one at a time, each write would wait a
      // full turn of an event loop that is also serving traffic.
      const rows = (await Promise.all(events.map((event) => writeObject(blobs, event)))).filter(
        (r) => r !== null,
      );
      await insertJsonRows(db, captureIndex, rows, "requestId");
    },
  });
}

async function writeObject(blobs: BlobStore, event: CallEvent) {
  const envelope = captureEnvelope(event);
  if (!envelope) return null;
  const key = captureKey(event);
  await blobs.putIfAbsent(key, envelope);
  return captureIndexRow(event, key, envelope.length, new Date());
}

/** The index row of a stored capture, from its event or from the envelope stored at `key`. */
export function captureIndexRow(
  capture: Pick<CallEvent, "request_id" | "org_id" | "project_id" | "workload_id" | "api_key_id">,
  key: string,
  size: number,
  uploadedAt: Date,
): typeof captureIndex.$inferInsert {
  return {
    requestId: capture.request_id,
    orgId: capture.org_id,
    projectId: capture.project_id,
    workloadId: capture.workload_id,
    apiKeyId: capture.api_key_id,
    key,
    size,
    uploadedAt,
  };
}
