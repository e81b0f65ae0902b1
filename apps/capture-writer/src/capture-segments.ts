import { type CallEventWithBodies, type CaptureBody, newId } from "@gateway/contracts";
import { captureEnvelopeParts } from "./capture-envelope.ts";
import { type BytePiece, joinPieces } from "./json-string-bytes.ts";

/**
 * `captures/<org_id>/segments/<YYYY-MM-DD>/<segment_id>.jsonl`: one org's captures of one
 * receipt day (UTC), from one write. The id is new on every write (a ULID), so a batch written
 * again after a crash makes a segment of its own rather than meeting the first one's key.
 */
export function segmentKey(orgId: string, day: string): string {
  return `captures/${orgId}/segments/${day}/${newId("segment")}.jsonl`;
}

/** A segment to write: its captures' envelopes, one after the other, in the order of the batch. */
export interface Segment {
  orgId: string;
  day: string;
  calls: CallEventWithBodies[];
  /** Bytes of the calls' bodies as they came (what building the envelopes holds in memory). */
  bodyBytes: number;
}

/**
 * A batch's captured calls as segments: one per (org, receipt day) and at most `segmentBytes`
 * bytes of bodies each (one larger call goes alone). A request id met twice in the batch is
 * packed once.
 */
export function segmentsOf(calls: CallEventWithBodies[], segmentBytes: number): Segment[] {
  const groups = new Map<string, CallEventWithBodies[]>();
  const seen = new Set<string>();
  for (const call of calls) {
    const { event } = call;
    if (!event.capture || !call.bodies || seen.has(event.request_id)) continue;
    seen.add(event.request_id);
    const group = `${event.org_id}/${event.received_at.slice(0, 10)}`;
    const members = groups.get(group);
    if (members) members.push(call);
    else groups.set(group, [call]);
  }
  const segments: Segment[] = [];
  for (const group of groups.values()) {
    const { org_id: orgId, received_at } = group[0]!.event;
    for (const calls of packed(group, callBodyBytes, segmentBytes))
      segments.push({ orgId, day: received_at.slice(0, 10), calls, bodyBytes: sumOf(calls, callBodyBytes) });
  }
  return segments;
}

/** The segment's object: its envelopes back to back, and where each one starts. */
export function segmentBytesOf(segment: Segment): {
  body: Buffer;
  places: { offset: number; size: number }[];
} {
  const parts: BytePiece[] = [];
  const places: { offset: number; size: number }[] = [];
  let offset = 0;
  for (const call of segment.calls) {
    const envelope = captureEnvelopeParts(call)!;
    const size = sumOf(envelope, (part) => part.length);
    parts.push(...envelope);
    places.push({ offset, size });
    offset += size;
  }
  return { body: joinPieces(parts), places };
}

/** `items` in order, cut into runs of at most `cap` (by `sizeOf`); an item larger than `cap` goes alone. */
export function packed<T>(items: T[], sizeOf: (item: T) => number, cap: number): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  let bytes = 0;
  for (const item of items) {
    const size = sizeOf(item);
    if (run.length > 0 && bytes + size > cap) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    run.push(item);
    bytes += size;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

const sumOf = <T>(items: T[], sizeOf: (item: T) => number) =>
  items.reduce((sum, item) => sum + sizeOf(item), 0);

/** A call's bodies as they came: their bytes, or a JSON event's text (base64 is 4/3 of its bytes). */
const callBodyBytes = ({ bodies }: CallEventWithBodies) =>
  bodies ? bodySize(bodies.request) + bodySize(bodies.response) : 0;
const bodySize = (body: CaptureBody) => ("data" in body ? body.data.length : body.bytes.length);
