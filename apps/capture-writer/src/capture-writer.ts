import type { BlobStore } from "@gateway/blobstore";
import type { EventBus } from "@gateway/bus";
import {
  type CallEvent,
  type CallEventWithBodies,
  type CaptureBody,
  callEventRequestId,
  callsTopic,
  type Logger,
  readCallEventsWithBodies,
} from "@gateway/contracts";
import { type Db, indexCaptures, type NewCaptureIndexRow } from "@gateway/db";
import type { Repeating } from "@gateway/runtime";
import { subscribeTraced, type Tracer } from "@gateway/tracing";
import { captureEnvelope, captureKey } from "./capture-envelope.ts";
import { startCapturesRetention } from "./captures-retention.ts";

export interface CaptureWriterDeps {
  db: Db;
  blobs: BlobStore;
  bus: EventBus;
  log: Logger;
  /** A span per call event, in the trace of the call that published it; null when tracing is off. */
  tracer?: Tracer | null;
  /** How often the retention job runs (`captures-retention.ts`); default an hour. */
  retentionEveryMs?: number;
}

/**
 * `gateway.calls.v1` → capture object + index row. Idempotent by request id: the object write
 * is create-only and the index insert ignores a row that exists, so a redelivered batch changes
 * nothing. The object is written before its index row, so a listed capture is always readable.
 * It runs the retention of captures (`captures-retention.ts`); closing the result stops it.
 */
export async function startCaptureWriter({
  db,
  blobs,
  bus,
  log,
  tracer,
  retentionEveryMs = 3_600_000,
}: CaptureWriterDeps): Promise<Repeating> {
  await subscribeTraced(
    bus,
    tracer,
    "capture-writer store",
    {
      topic: callsTopic,
      group: "capture-writer",
      async handle(batch) {
        const events = readCallEventsWithBodies(batch, log);
        const rows: NewCaptureIndexRow[] = [];
        for (const group of bodyBudgetGroups(events)) {
          // A group's objects are written side by side: one at a time, each write would wait a
          // full turn of an event loop that is also serving traffic.
          for (const row of await Promise.all(group.map((event) => writeObject(blobs, event))))
            if (row) rows.push(row);
        }
        await indexCaptures(db, rows);
      },
    },
    callEventRequestId,
  );
  return startCapturesRetention(db, blobs, log, retentionEveryMs);
}

/** Bytes of bodies whose objects may be built and written at once (one larger event goes alone). */
const bodyBudget = 8 * 1024 * 1024;

/**
 * The batch in groups of at most `bodyBudget` bytes of bodies: each object is its whole envelope
 * in memory until written, so large captures are written a few at a time, not a batch at once.
 */
function bodyBudgetGroups(events: CallEventWithBodies[]): CallEventWithBodies[][] {
  const groups: CallEventWithBodies[][] = [];
  let group: CallEventWithBodies[] = [];
  let bytes = 0;
  for (const event of events) {
    const size = event.bodies ? bodySize(event.bodies.request) + bodySize(event.bodies.response) : 0;
    if (group.length > 0 && bytes + size > bodyBudget) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(event);
    bytes += size;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** A body's size as it came: its bytes, or a JSON event's text (base64 is 4/3 of its bytes). */
const bodySize = (body: CaptureBody) => ("data" in body ? body.data.length : body.bytes.length);

async function writeObject(blobs: BlobStore, call: CallEventWithBodies) {
  const envelope = captureEnvelope(call);
  if (!envelope) return null;
  const { event } = call;
  const key = captureKey(event);
  await blobs.putIfAbsent(key, envelope);
  return captureIndexRow(event, key, envelope.length, new Date());
}

/** The index row of a stored capture, from its event or from the envelope stored at `key`. */
export function captureIndexRow(
  capture: Pick<
    CallEvent,
    "request_id" | "org_id" | "project_id" | "workload_id" | "api_key_id" | "received_at"
  >,
  key: string,
  size: number,
  uploadedAt: Date,
): NewCaptureIndexRow {
  return {
    requestId: capture.request_id,
    orgId: capture.org_id,
    projectId: capture.project_id,
    workloadId: capture.workload_id,
    apiKeyId: capture.api_key_id,
    key,
    size,
    uploadedAt,
    receivedAt: new Date(capture.received_at),
  };
}
