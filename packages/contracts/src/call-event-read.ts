import { type CallEvent, callEventSchema, type RawBody } from "./call-event.ts";
import {
  builtReading,
  type CallEventWithBodies,
  type CaptureBody,
  encodedAs,
  frameParts,
} from "./call-event-frame.ts";
import type { Logger } from "./logger.ts";

// How consumers read a delivered `gateway.calls.v1` payload: a frame (call-event-frame.ts) or
// the event as JSON, checked against the schema; a malformed one is dropped with a log line.

/** A body as a capture envelope stores it: UTF-8 text when it is valid UTF-8, base64 otherwise. */
function rawBody(bytes: Buffer): RawBody {
  const { encoding } = encodedAs(bytes);
  return { encoding, data: bytes.toString(encoding) };
}

/**
 * What a consumer reads of a call event. `capture: false`: the event without its capture (null),
 * for a consumer that never looks at it, which then pays nothing for the bodies.
 */
interface ReadOptions {
  capture: boolean;
}

/** The event in a frame, as the JSON event it stands for (bodies as `RawBody`); throws when torn. */
function decodeCallEvent(frame: Buffer, options: ReadOptions): unknown {
  const { event, request, response } = frameParts(frame);
  return withBodies(event, options.capture ? [rawBody(request), rawBody(response)] : null);
}

/**
 * A frame's event JSON with its capture's bodies set (a capture it has: none when `bodies` is
 * null); anything that is not an event object is left for the schema to refuse.
 */
function withBodies(event: unknown, bodies: [RawBody, RawBody] | null): unknown {
  if (typeof event !== "object" || event === null || !("capture" in event)) return event;
  if (!bodies) event.capture = null;
  else if (typeof event.capture === "object" && event.capture !== null)
    event.capture = { ...event.capture, request_body: bodies[0], response_body: bodies[1] };
  return event;
}

/**
 * The request id of a delivered call event (a frame or JSON), without decoding its bodies or
 * checking the rest; undefined when it has none.
 */
export function callEventRequestId(payload: unknown): string | undefined {
  let event = payload;
  if (Buffer.isBuffer(payload)) {
    try {
      event = frameParts(payload).event;
    } catch {
      return undefined;
    }
  }
  if (typeof event !== "object" || event === null || !("request_id" in event)) return undefined;
  return typeof event.request_id === "string" ? event.request_id : undefined;
}

/**
 * A delivered `gateway.calls.v1` payload as a checked event: a frame (what the gateway
 * publishes) or the event as JSON (what gateways published before frames, still on a topic or in a
 * journal after an upgrade, and what tests publish).
 */
export function readCallEvent(
  payload: unknown,
  options: ReadOptions = { capture: true },
): { event: CallEvent } | { problem: string } {
  const read = Buffer.isBuffer(payload) && !options.capture ? readingOfFrame(payload) : undefined;
  if (read) return "problem" in read ? read : { event: { ...read.event, capture: null } };
  let json: unknown;
  try {
    if (Buffer.isBuffer(payload)) json = decodeCallEvent(payload, options);
    else if (!options.capture && typeof payload === "object" && payload !== null)
      json = { ...payload, capture: null };
    else json = payload;
  } catch (error) {
    return { problem: problemOf(error) };
  }
  return checkedCallEvent(json);
}

/** As `readCallEvent`, for a consumer that writes the capture's bodies out as they came. */
export function readCallEventWithBodies(payload: unknown): CallEventWithBodies | { problem: string } {
  if (!Buffer.isBuffer(payload)) {
    const read = readCallEvent(payload);
    return "event" in read ? apart(read.event) : read;
  }
  const read = readingOfFrame(payload) ?? readFrameWithBodies(payload);
  readings.set(payload, read);
  return read;
}

/**
 * Each frame's reading with its bodies, while the frame lives: the embedded bus hands every group
 * the same Buffer, so the costing worker takes the capture writer's reading (its event, without the
 * capture) instead of parsing and checking the event a second time. Readers never change a reading.
 */
const readings = new WeakMap<Buffer, CallEventWithBodies | { problem: string }>();

/** A frame's reading already made, or made now from the event it was built from in this process. */
function readingOfFrame(frame: Buffer): CallEventWithBodies | { problem: string } | undefined {
  return readings.get(frame) ?? builtReading(frame);
}

function readFrameWithBodies(payload: Buffer): CallEventWithBodies | { problem: string } {
  let parts: ReturnType<typeof frameParts>;
  try {
    parts = frameParts(payload);
  } catch (error) {
    return { problem: problemOf(error) };
  }
  // the schema checks the encodings; the text it would check is never made
  const placeholders: [RawBody, RawBody] = [encodedAs(parts.request), encodedAs(parts.response)];
  const read = checkedCallEvent(withBodies(parts.event, placeholders));
  return "event" in read ? apart(read.event, [parts.request, parts.response]) : read;
}

/**
 * The event without its capture's bodies, and the bodies apart: `bytes` (request, response) in
 * the encodings the event names, or without them the `RawBody`s it carried.
 */
function apart(event: CallEvent, bytes?: [Buffer, Buffer]): CallEventWithBodies {
  if (!event.capture) return { event: { ...event, capture: null }, bodies: null };
  const { request_body, response_body, ...meta } = event.capture;
  const body = (raw: RawBody, of: Buffer | undefined): CaptureBody =>
    of ? { encoding: raw.encoding, bytes: of } : raw;
  return {
    event: { ...event, capture: meta },
    bodies: { request: body(request_body, bytes?.[0]), response: body(response_body, bytes?.[1]) },
  };
}

/** The call events of a delivered batch with their bodies apart, in order; a malformed one is logged and dropped. */
export function readCallEventsWithBodies(batch: readonly unknown[], log: Logger): CallEventWithBodies[] {
  return readableOnes(batch, log, readCallEventWithBodies);
}

function checkedCallEvent(json: unknown): { event: CallEvent } | { problem: string } {
  const parsed = callEventSchema.safeParse(json);
  if (parsed.success) return { event: parsed.data };
  return {
    problem: parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join(".")}: ${i.message}`)
      .join("; "),
  };
}

function problemOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The call events of a delivered batch, in order; a malformed one is logged and dropped. */
export function readCallEvents(batch: readonly unknown[], log: Logger, options?: ReadOptions): CallEvent[] {
  return readableOnes(batch, log, (payload) => readCallEvent(payload, options)).map((read) => read.event);
}

/** What `read` makes of each payload of a batch, in order; one it cannot read is logged and dropped. */
function readableOnes<T extends object>(
  batch: readonly unknown[],
  log: Logger,
  read: (payload: unknown) => T | { problem: string },
): T[] {
  const readable: T[] = [];
  for (const payload of batch) {
    const result = read(payload);
    if ("problem" in result) log.error("dropping malformed call event", { problem: result.problem });
    else readable.push(result);
  }
  return readable;
}
