import {
  type CallEvent,
  type CallEventBytes,
  callsTopic,
  frameCallEvent,
  readCallEvent,
  readCallEventWithBodies,
  rememberFrame,
} from "@gateway/contracts";
import { testCallEvent } from "@gateway/testkit";
import { describe, expect, it } from "vitest";

const event: CallEvent & CallEventBytes = {
  ...testCallEvent({ request_id: "req_1", tags: { team: "ü" } }),
  capture: null,
};

const encode = (e: CallEventBytes) => frameCallEvent(e).encode();

function read(payload: unknown): CallEvent {
  const result = readCallEvent(payload);
  if (!("event" in result)) throw new Error(result.problem);
  return result.event;
}

describe("a call event's frame", () => {
  // quotes, newlines and tabs that JSON would escape; a response that is not UTF-8 at all
  const request = Buffer.from('{"messages":[{"content":"say \\"hi\\"\\n\\tü"}]}');
  const response = Buffer.from([0x00, 0xff, 0x0a, 0x7b, 0xfe]);
  const captured: CallEventBytes = {
    ...event,
    capture: {
      request_headers: { "content-type": "application/json" },
      response_headers: { "x-id": "1" },
      request_body: request,
      response_body: response,
      response_body_omitted_bytes: 7,
    },
  };

  it("carries the bodies as their bytes, after the event's JSON, behind the bus's binary mark", () => {
    const framed = frameCallEvent(captured);
    const frame = framed.encode();
    expect(frame.length).toBe(framed.bytes);
    expect(frame[0]).toBe(0x00);
    expect(frame.subarray(frame.length - response.length)).toEqual(response);
    expect(frame.includes(request)).toBe(true);
  });

  it("reads back as the event, each body as UTF-8 text when it is, base64 when not", () => {
    expect(read(encode(captured))).toEqual({
      ...event,
      capture: {
        request_headers: { "content-type": "application/json" },
        response_headers: { "x-id": "1" },
        request_body: { encoding: "utf8", data: request.toString("utf8") },
        response_body: { encoding: "base64", data: response.toString("base64") },
        response_body_omitted_bytes: 7,
      },
    });
  });

  it("reads an event without a capture, and one with empty bodies", () => {
    expect(read(encode(event))).toEqual(event);
    const empty = {
      ...captured,
      capture: { ...captured.capture!, request_body: Buffer.alloc(0), response_body: Buffer.alloc(0) },
    };
    const back = read(encode(empty));
    expect(back.capture?.request_body).toEqual({ encoding: "utf8", data: "" });
    expect(back.capture?.response_body).toEqual({ encoding: "utf8", data: "" });
  });

  it("reads the event without its capture for a consumer that does not want it, frame or JSON", () => {
    const bare = readCallEvent(encode(captured), { capture: false });
    expect(bare).toEqual({ event: { ...event, capture: null } });
    const json = { ...event, capture: { ...read(encode(captured)).capture! } };
    expect(readCallEvent(json, { capture: false })).toEqual({ event: { ...event, capture: null } });
    expect(json.capture).not.toBeNull();
  });

  it("reads a frame once for every consumer of it: without the capture, the same event as with", () => {
    const frame = encode(captured);
    const withBodies = readCallEventWithBodies(frame);
    if (!("event" in withBodies)) throw new Error(withBodies.problem);
    const bare = readCallEvent(frame, { capture: false });
    expect(bare).toEqual({ event: { ...event, capture: null } });
    // the second reader took the first one's reading (the same tags object), not a parse of its own
    expect("event" in bare && bare.event.tags).toBe(withBodies.event.tags);
    expect(readCallEventWithBodies(frame)).toBe(withBodies);
    // a torn frame's problem is read once too
    const torn = frame.subarray(0, 20);
    expect(readCallEventWithBodies(torn)).toEqual(readCallEvent(torn, { capture: false }));
  });

  it("reads a frame remembered as built in this process as its bytes read back, without parsing them", () => {
    const kinds: CallEventBytes[] = [
      event,
      { ...event, arm_source: undefined },
      captured,
      { ...captured, capture: { ...captured.capture!, request_body: Buffer.alloc(0) } },
      { ...captured, capture: { ...captured.capture!, response_body_omitted_bytes: undefined } },
      {
        ...captured,
        fallback_reason: undefined,
        arm_source: null,
        refused_by: { scope: "api_key", limit: "requests_per_minute" },
        usage: {
          input_tokens: 3,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_creation_5m_input_tokens: 0,
          cache_creation_1h_input_tokens: 0,
          output_tokens: 5,
          raw: { prompt_tokens: 3, completion_tokens: 5 },
        },
        capture: {
          ...captured.capture!,
          response_frames: [
            [0, 1.5],
            [12, 3],
          ],
          response_body: request,
        },
      },
    ];
    for (const kind of kinds) {
      const frame = encode(kind);
      rememberFrame(frame, kind);
      const built = readCallEventWithBodies(frame);
      // a copy of the same bytes was never remembered: it is parsed and checked
      const parsed = readCallEventWithBodies(Buffer.from(frame));
      expect(built).toStrictEqual(parsed);
      // taken from the event it was built from, not parsed: the same tags object
      expect("event" in built && built.event.tags).toBe(kind.tags);
      expect("event" in parsed && parsed.event.tags).not.toBe(kind.tags);
      // the bodies are views of the frame itself, not copies
      if ("bodies" in built && built.bodies && "bytes" in built.bodies.request)
        expect(built.bodies.request.bytes.buffer).toBe(frame.buffer);
    }
  });

  it("reads the event as JSON too: what gateways published before frames", () => {
    const json = { ...event, capture: { ...read(encode(captured)).capture! } };
    expect(read(JSON.parse(JSON.stringify(json)))).toEqual(json);
  });

  it("says what is wrong with a torn frame, another version, or an event that is not one", () => {
    const frame = encode(captured);
    const problem = (payload: unknown) => {
      const result = readCallEvent(payload);
      return "problem" in result ? result.problem : null;
    };
    expect(problem(frame.subarray(0, 20))).toMatch(/cut short/);
    expect(problem(Buffer.from([0x00, 0x02, ...frame.subarray(2)]))).toMatch(/version 1/);
    expect(problem(encode({ ...event, status: "ok" } as unknown as CallEventBytes))).toMatch(/status/);
    expect(problem({ schema: callsTopic })).toMatch(/request_id/);
  });
});
