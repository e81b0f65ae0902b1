import type { BlobStore } from "@gateway/blobstore";
import type { EventBus } from "@gateway/bus";
import {
  type CallEvent,
  type CallEventWithBodies,
  callEventRequestId,
  callsTopic,
  type Logger,
  readCallEventsWithBodies,
} from "@gateway/contracts";
import { type Db, indexCaptures, type NewCaptureIndexRow } from "@gateway/db";
import type { Repeating } from "@gateway/runtime";
import { subscribeTraced, type Tracer } from "@gateway/tracing";
import { packed, type Segment, segmentBytesOf, segmentKey, segmentsOf } from "./capture-segments.ts";
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
  /**
   * A segment's bodies at most this many bytes (8 MiB); one call larger goes alone. 1 writes
   * every capture as an object of its own, one PUT per call: what `pnpm bench:consumers`
   * measures segments against.
   */
  segmentBytes?: number;
}

/**
 * Bytes of bodies whose segments may be built and written at once (one larger segment goes
 * alone): a segment is all its envelopes in memory until written, so memory stays bounded
 * whatever the batch holds.
 */
const bodyBudget = 8 * 1024 * 1024;

/**
 * `gateway.calls.v1` → segment objects + index rows. A handled batch's captures are packed into
 * one object per (org, receipt day), cut at `segmentBytes`, written create-only; then each
 * capture's index row (its segment, offset and length) is inserted, so a listed capture is
 * always readable. Idempotent by request id: a batch delivered again after a crash writes a
 * segment of its own (its key is new), and the index insert keeps the row a capture already
 * has, so a capture is listed once, from the segment first indexed; the other's bytes are never
 * read, and retention reclaims them with the rest of their day. It runs the retention of
 * captures (`captures-retention.ts`); closing the result stops it.
 */
export async function startCaptureWriter({
  db,
  blobs,
  bus,
  log,
  tracer,
  retentionEveryMs = 3_600_000,
  segmentBytes = bodyBudget,
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
        await indexCaptures(db, await writeCaptureSegments(blobs, events, segmentBytes));
      },
    },
    callEventRequestId,
  );
  return startCapturesRetention(db, blobs, log, retentionEveryMs);
}

/**
 * Writes the captures among `calls` as segments (see `startCaptureWriter`) and returns their
 * index rows, to be inserted once the segments are written. The all-in-one process inserts them
 * with the batch's call rows.
 */
export async function writeCaptureSegments(
  blobs: BlobStore,
  calls: CallEventWithBodies[],
  segmentBytes = bodyBudget,
): Promise<NewCaptureIndexRow[]> {
  const rows: NewCaptureIndexRow[] = [];
  for (const wave of packed(segmentsOf(calls, segmentBytes), (s) => s.bodyBytes, bodyBudget)) {
    // A wave's segments are written side by side: one at a time, each write would wait a full
    // turn of an event loop that is also serving traffic.
    for (const written of await Promise.all(wave.map((segment) => writeSegment(blobs, segment))))
      rows.push(...written);
  }
  return rows;
}

async function writeSegment(blobs: BlobStore, segment: Segment): Promise<NewCaptureIndexRow[]> {
  const key = segmentKey(segment.orgId, segment.day);
  const { body, places } = segmentBytesOf(segment);
  await blobs.putIfAbsent(key, body);
  const uploadedAt = new Date();
  return segment.calls.map(({ event }, i) => captureIndexRow(event, { key, ...places[i]! }, uploadedAt));
}

/** Where a capture's bytes are: `size` bytes of the object `key` from `offset`; null offset: all of it. */
export interface CapturePlace {
  key: string;
  offset: number | null;
  size: number;
}

/** The index row of a stored capture, from its event or from the envelope stored at `place`. */
export function captureIndexRow(
  capture: Pick<
    CallEvent,
    "request_id" | "org_id" | "project_id" | "workload_id" | "api_key_id" | "received_at"
  >,
  { key, offset, size }: CapturePlace,
  uploadedAt: Date,
): NewCaptureIndexRow {
  return {
    requestId: capture.request_id,
    orgId: capture.org_id,
    projectId: capture.project_id,
    workloadId: capture.workload_id,
    apiKeyId: capture.api_key_id,
    key,
    offset,
    size,
    uploadedAt,
    receivedAt: new Date(capture.received_at),
  };
}
