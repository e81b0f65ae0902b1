import { type CallEvent, callEventSchema } from "@gateway/contracts";
import { testCallEvent } from "@gateway/testkit";
import { describe, expect, it } from "vitest";
import { type CaptureParts, fitCapture } from "../src/capture-fit.ts";

/** The event with its capture fitted to `maxBytes`, and whether it was cut. */
function withCapture(event: CallEvent, parts: CaptureParts, maxBytes: number) {
  const fitted = { ...event };
  const cut = fitCapture(fitted, parts, maxBytes);
  return { event: fitted, cut };
}

const bytesOf = (event: CallEvent) => Buffer.byteLength(JSON.stringify(event));
const decoded = (body: { encoding: "utf8" | "base64"; data: string }) =>
  Buffer.from(body.data, body.encoding);

function parts(request: Buffer, answer: Buffer, answerOmitted = 0): CaptureParts {
  return {
    requestHeaders: { "content-type": "application/json" },
    responseHeaders: { "content-type": "application/json" },
    request,
    answer,
    answerOmitted,
  };
}

describe("a call event's capture, fitted to the bus's largest message", () => {
  const event = { ...testCallEvent(), capture: null };
  const mib = 1024 * 1024;

  it("keeps every byte when the event fits, with no omitted counts", () => {
    const request = Buffer.from('{"messages":"hi"}');
    const answer = Buffer.from([0xff, 0x00, 0x01]); // not UTF-8: base64
    const { event: fitted, cut } = withCapture(event, parts(request, answer), mib);
    expect(cut).toBe(false);
    expect(decoded(fitted.capture!.request_body)).toEqual(request);
    expect(fitted.capture!.response_body.encoding).toBe("base64");
    expect(decoded(fitted.capture!.response_body)).toEqual(answer);
    expect(fitted.capture).not.toHaveProperty("request_body_omitted_bytes");
    expect(fitted.capture).not.toHaveProperty("response_body_omitted_bytes");
  });

  it("cuts both bodies past the limit to prefixes, and counts what it left out", () => {
    // "é" is 2 bytes: a cut in the middle of one would turn the text to base64
    const request = Buffer.from(`{"content":"${"é".repeat(mib)}"}`);
    const answer = Buffer.from(`{"text":"${"a\n".repeat(mib)}"}`); // escaping doubles each \n
    const { event: fitted, cut } = withCapture(event, parts(request, answer, 5), mib);
    expect(cut).toBe(true);
    expect(bytesOf(fitted)).toBeLessThanOrEqual(mib);
    expect(callEventSchema.parse(fitted)).toEqual(fitted);
    const capture = fitted.capture!;
    expect(capture.request_body.encoding).toBe("utf8");
    const keptRequest = decoded(capture.request_body);
    const keptAnswer = decoded(capture.response_body);
    // Buffer.equals: a deep toEqual over a megabyte takes seconds
    expect(request.subarray(0, keptRequest.length).equals(keptRequest)).toBe(true);
    expect(answer.subarray(0, keptAnswer.length).equals(keptAnswer)).toBe(true);
    expect(capture.request_body_omitted_bytes).toBe(request.length - keptRequest.length);
    expect(capture.response_body_omitted_bytes).toBe(answer.length - keptAnswer.length + 5);
    // the room is shared: each body keeps a good part of its half
    expect(keptRequest.length).toBeGreaterThan(mib / 4);
    expect(keptAnswer.length).toBeGreaterThan(mib / 8);
  });

  it("keeps a small body whole and gives the room it leaves to the large one", () => {
    const request = Buffer.from('{"model":"m"}');
    const answer = Buffer.alloc(3 * mib, "x");
    const { event: fitted, cut } = withCapture(event, parts(request, answer), mib);
    expect(cut).toBe(true);
    expect(bytesOf(fitted)).toBeLessThanOrEqual(mib);
    expect(decoded(fitted.capture!.request_body)).toEqual(request);
    expect(fitted.capture).not.toHaveProperty("request_body_omitted_bytes");
    expect(decoded(fitted.capture!.response_body).length).toBeGreaterThan(mib * 0.8);
  });

  it("keeps no body at all when the rest of the event leaves no room for one", () => {
    const request = Buffer.alloc(64 * 1024, "r");
    const { event: fitted, cut } = withCapture(event, parts(request, Buffer.alloc(0)), 32 * 1024);
    expect(cut).toBe(true);
    expect(fitted.capture!.request_body.data).toBe("");
    expect(fitted.capture!.request_body_omitted_bytes).toBe(request.length);
    expect(fitted.usage).toEqual(event.usage);
  });
});
