import {
  type CallCapture,
  type CallEvent,
  type CallEventBytes,
  frameCallEvent,
  readCallEventWithBodies,
} from "@gateway/contracts";
import { testCallEvent } from "@gateway/testkit";
import { describe, expect, it } from "vitest";
import { captureEnvelope } from "../src/capture-envelope.ts";

const fixed = { request_id: "req_01", received_at: "2026-11-27T03:00:00.000Z" };
const headers = {
  request_headers: { "content-type": "application/json" },
  response_headers: { "x-id": "1" },
};

/** The envelope of `event` read back from its frame and from its JSON: both must be `expected`. */
function expectEnvelopes(event: CallEvent, bodies: { request: Buffer; response: Buffer }, expected: string) {
  const capture = event.capture!;
  const framed: CallEventBytes = {
    ...event,
    capture: { ...capture, request_body: bodies.request, response_body: bodies.response },
  };
  for (const payload of [frameCallEvent(framed).encode(), event]) {
    const read = readCallEventWithBodies(payload);
    if (!("event" in read)) throw new Error(read.problem);
    expect(captureEnvelope(read)?.toString("latin1")).toBe(Buffer.from(expected).toString("latin1"));
  }
}

describe("captureEnvelope", () => {
  it("writes the envelope's fields in their order, a body's text escaped as JSON.stringify escapes it", () => {
    const request = Buffer.from('{"content":"a \\"q\\"\\n\\tb — µ →\u0001"}');
    const response = Buffer.from("ok\n");
    const capture: CallCapture = {
      ...headers,
      request_body: { encoding: "utf8", data: request.toString() },
      response_body: { encoding: "utf8", data: response.toString() },
    };
    const event = testCallEvent({ ...fixed, capture });
    expectEnvelopes(
      event,
      { request, response },
      '{"request_id":"req_01","org_id":"org_1","project_id":"proj_1","workload_id":"usp_1",' +
        '"api_key_id":"api_key_1","received_at":"2026-11-27T03:00:00.000Z","endpoint":"chat_completions",' +
        '"mode":"byo","route":"primary","requested_model":"gpt-5.4-mini","served_model":"gpt-5.4-mini",' +
        '"provider_label":"provider_b","stream":false,"status":200,"first_byte_ms":1,"total_ms":2,' +
        '"stream_outcome":"complete","error":null,"tags":{},"request_headers":{"content-type":"application/json"},' +
        '"request_body":"{\\"content\\":\\"a \\\\\\"q\\\\\\"\\\\n\\\\tb — µ →\\u0001\\"}","request_body_encoding":"utf8",' +
        '"response_headers":{"x-id":"1"},"response_body":"ok\\n","response_body_encoding":"utf8"}\n',
    );
  });

  it("writes a stream's timeline after its bodies, the bytes unchanged", () => {
    const response = Buffer.from("data: 1\n\ndata: 2\n\n");
    const capture: CallCapture = {
      ...headers,
      request_body: { encoding: "utf8", data: "" },
      response_body: { encoding: "utf8", data: response.toString() },
      response_frames: [
        [0, 10.5],
        [10, 42],
      ],
    };
    const event = testCallEvent({ ...fixed, stream: true, capture });
    const read = readCallEventWithBodies(event);
    if (!("event" in read)) throw new Error(read.problem);
    const envelope = captureEnvelope(read)!.toString();
    expect(
      envelope.endsWith(
        '"response_body":"data: 1\\n\\ndata: 2\\n\\n","response_body_encoding":"utf8","response_frames":[[0,10.5],[10,42]]}\n',
      ),
    ).toBe(true);
    expectEnvelopes(event, { request: Buffer.alloc(0), response }, envelope);
  });

  it("writes a body that is not UTF-8 as base64, and what a cut body left out", () => {
    const response = Buffer.from([0xff, 0x00, 0x22]);
    const capture: CallCapture = {
      ...headers,
      request_body: { encoding: "utf8", data: "" },
      response_body: { encoding: "base64", data: response.toString("base64") },
      request_body_omitted_bytes: 10,
      response_body_omitted_bytes: 7,
    };
    const event = testCallEvent({
      ...fixed,
      status: 502,
      error: { type: "upstream_unavailable", message: 'it said "no"' },
      tags: { team: "a\nb" },
      capture,
    });
    expectEnvelopes(
      event,
      { request: Buffer.alloc(0), response },
      '{"request_id":"req_01","org_id":"org_1","project_id":"proj_1","workload_id":"usp_1",' +
        '"api_key_id":"api_key_1","received_at":"2026-11-27T03:00:00.000Z","endpoint":"chat_completions",' +
        '"mode":"byo","route":"primary","requested_model":"gpt-5.4-mini","served_model":"gpt-5.4-mini",' +
        '"provider_label":"provider_b","stream":false,"status":502,"first_byte_ms":1,"total_ms":2,' +
        '"stream_outcome":"complete","error":{"type":"upstream_unavailable","message":"it said \\"no\\""},' +
        '"tags":{"team":"a\\nb"},"request_headers":{"content-type":"application/json"},' +
        '"request_body":"","request_body_encoding":"utf8","response_headers":{"x-id":"1"},' +
        '"response_body":"/wAi","response_body_encoding":"base64",' +
        '"request_body_omitted_bytes":10,"response_body_omitted_bytes":7}\n',
    );
  });

  it("writes a JSON event's bodies as the text it carried, even text its bytes would not give back", () => {
    // a lone surrogate has no UTF-8, and base64 without its padding is not what encoding gives
    const capture: CallCapture = {
      ...headers,
      request_body: { encoding: "utf8", data: "a\ud800b" },
      response_body: { encoding: "base64", data: "/wA" },
    };
    const read = readCallEventWithBodies(testCallEvent({ ...fixed, capture }));
    if (!("event" in read)) throw new Error(read.problem);
    const envelope = captureEnvelope(read)!.toString();
    expect(envelope).toContain('"request_body":"a\\ud800b","request_body_encoding":"utf8"');
    expect(envelope).toContain('"response_body":"/wA","response_body_encoding":"base64"');
  });

  it("says how a routed call's arm was chosen, next to its route; a call no route applied to reads as before", () => {
    const capture: CallCapture = {
      ...headers,
      request_body: { encoding: "utf8", data: "{}" },
      response_body: { encoding: "utf8", data: "{}" },
    };
    const envelope = (arm_source: CallEvent["arm_source"]) => {
      const read = readCallEventWithBodies(
        testCallEvent({ ...fixed, route: "gateway", arm_source, capture }),
      );
      if (!("event" in read)) throw new Error(read.problem);
      return captureEnvelope(read)!.toString();
    };
    expect(envelope("affinity")).toContain('"route":"gateway","arm_source":"affinity","requested_model"');
    expect(envelope("draw")).toContain('"route":"gateway","arm_source":"draw","requested_model"');
    for (const none of [null, undefined])
      expect(envelope(none)).toContain('"route":"gateway","requested_model"');
  });

  it("writes nothing for an event without a capture", () => {
    const read = readCallEventWithBodies(testCallEvent());
    if (!("event" in read)) throw new Error(read.problem);
    expect(read.bodies).toBeNull();
    expect(captureEnvelope(read)).toBeNull();
  });
});
