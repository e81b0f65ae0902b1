import { isUtf8 } from "node:buffer";
import type { CallCapture, CallEvent, RawBody } from "./call-event.ts";

/** A call's capture as the gateway holds it: its two bodies as the bytes themselves. */
export type CallCaptureBytes = Omit<CallCapture, "request_body" | "response_body"> & {
  request_body: Buffer;
  response_body: Buffer;
};

/** A `gateway.calls.v1` event as the gateway builds it, before it is framed. */
export type CallEventBytes = Omit<CallEvent, "capture"> & { capture: CallCaptureBytes | null };

/**
 * How a call event travels on the bus: a frame, so that the bodies (most of an event's bytes: a
 * coding agent's prompt is 100 KB of JSON) are copied as they are instead of escaped into JSON
 * by the gateway, once per call, on the hot path.
 *
 *     0x00 0x01                the bus's mark of a binary payload (no JSON text starts with 0x00),
 *                              then the frame's version
 *     u32be n, n bytes         the event as UTF-8 JSON, its capture without the two bodies
 *     u32be m, m bytes         the request body (m = 0 without a capture)
 *     the rest                 the response body
 */
const version = 1;
/** The frame's bytes beside the event's JSON and the bodies. */
const overheadBytes = 10;
const noBody = Buffer.alloc(0);

/** A call event's capture without its two bodies. */
type CaptureMeta = Omit<CallCapture, "request_body" | "response_body">;

/** A call event as its frame's JSON holds it: its capture (if any) without the bodies. */
type EventMeta = Omit<CallEvent, "capture"> & { capture: CaptureMeta | null };

function withoutBodies(event: CallEventBytes): EventMeta {
  if (!event.capture) return { ...event, capture: null };
  const { request_body: _request, response_body: _response, ...meta } = event.capture;
  return { ...event, capture: meta };
}

/** An event about to be framed: the bytes its frame takes, and the frame (its JSON made once). */
export interface CallEventFrame {
  readonly bytes: number;
  encode(): Buffer;
}

/** The event's frame (see the layout above), measured before it is built. */
export function frameCallEvent(event: CallEventBytes): CallEventFrame {
  const meta = JSON.stringify(withoutBodies(event));
  const metaBytes = Buffer.byteLength(meta);
  const request = event.capture?.request_body ?? noBody;
  const response = event.capture?.response_body ?? noBody;
  const bytes = overheadBytes + metaBytes + request.length + response.length;
  return {
    bytes,
    encode() {
      const frame = Buffer.allocUnsafe(bytes);
      frame[0] = 0;
      frame[1] = version;
      frame.writeUInt32BE(metaBytes, 2);
      let at = 6 + frame.write(meta, 6, "utf8");
      at = frame.writeUInt32BE(request.length, at);
      at += request.copy(frame, at);
      response.copy(frame, at);
      return frame;
    },
  };
}

/**
 * The event a frame of this process was built from, and where its bodies start in it
 * (`rememberFrame`), until a reader of the process asks for its reading (`builtReading`).
 */
const builtFrom = new WeakMap<Buffer, { event: EventMeta; requestAt: number; responseAt: number }>();

/**
 * Remembers what `frame` (`frameCallEvent(event).encode()`) was built from, for a bus that hands
 * the very Buffer to a subscriber of this process (`EventBus.handsOverPayloads`): the all-in-one
 * process's consumer then reads it without parsing and checking its JSON again (they were ~6 % of
 * that process's CPU under load). A frame that crossed Kafka or was replayed from the journal is
 * another Buffer, read and checked as ever. The event is kept without its bodies, which are in
 * the frame.
 */
export function rememberFrame(frame: Buffer, event: CallEventBytes): void {
  const requestAt = 6 + frame.readUInt32BE(2) + 4;
  const responseAt = requestAt + frame.readUInt32BE(requestAt - 4);
  builtFrom.set(frame, { event: withoutBodies(event), requestAt, responseAt });
}

/**
 * What reading a frame of `builtFrom` gives, from the event it was built from; undefined for any
 * other Buffer. `apps/gateway/test/call-event-frame.test.ts` holds it equal to parsing the frame.
 * The bodies are views of the frame, so the reading keeps no copy of them alive.
 */
export function builtReading(frame: Buffer): CallEventWithBodies | undefined {
  const built = builtFrom.get(frame);
  if (!built) return undefined;
  const { event, requestAt, responseAt } = built;
  return readingOf(event, frame.subarray(requestAt, responseAt), frame.subarray(responseAt));
}

function readingOf(event: EventMeta, request: Buffer, response: Buffer): CallEventWithBodies {
  if (!event.capture) return { event: definedOnly(event), bodies: null };
  return {
    event: { ...definedOnly(event), capture: definedOnly(event.capture) },
    bodies: {
      request: { encoding: encodedAs(request).encoding, bytes: request },
      response: { encoding: encodedAs(response).encoding, bytes: response },
    },
  };
}

/** `fields` without those set to undefined, as its JSON read back would be (the event's nested values come from JSON or have none). */
function definedOnly<T extends object>(fields: T): T {
  const defined = {} as T;
  for (const key in fields) if (fields[key] !== undefined) defined[key] = fields[key];
  return defined;
}

/** A frame's parts: its event's JSON (parsed), and the two bodies; throws when torn. */
export function frameParts(frame: Buffer): { event: unknown; request: Buffer; response: Buffer } {
  if (frame.length < overheadBytes || frame[0] !== 0 || frame[1] !== version)
    throw new Error(`not a call event frame of version ${version}`);
  const metaEnd = 6 + frame.readUInt32BE(2);
  if (metaEnd + 4 > frame.length) throw new Error("call event frame cut short in its JSON");
  const requestEnd = metaEnd + 4 + frame.readUInt32BE(metaEnd);
  if (requestEnd > frame.length) throw new Error("call event frame cut short in its request body");
  return {
    event: JSON.parse(frame.toString("utf8", 6, metaEnd)),
    request: frame.subarray(metaEnd + 4, requestEnd),
    response: frame.subarray(requestEnd),
  };
}

/**
 * A capture's body for a consumer that writes it out: a frame's bytes with the encoding an
 * envelope stores them in (UTF-8 text, or base64 when they are not valid UTF-8), or, from an event
 * that came as JSON, the `RawBody` it carried, as it was.
 */
export type CaptureBody = { encoding: RawBody["encoding"]; bytes: Buffer } | RawBody;

/**
 * A call event with its capture's bodies apart (null without a capture): a frame's as its bytes,
 * never made text (a coding agent's request is 100 KB of it).
 */
export interface CallEventWithBodies {
  event: EventMeta;
  bodies: { request: CaptureBody; response: CaptureBody } | null;
}

/** The encoding a capture envelope stores these bytes in, without their text (`data` empty). */
export function encodedAs(bytes: Buffer): RawBody {
  return { encoding: isUtf8(bytes) ? "utf8" : "base64", data: "" };
}
