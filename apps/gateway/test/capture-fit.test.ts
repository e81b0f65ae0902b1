import { type CallEventBytes, frameCallEvent, readCallEvent } from "@gateway/contracts";
import { testCallEvent } from "@gateway/testkit";
import { describe, expect, it } from "vitest";
import { type CaptureParts, fitCapture } from "../src/capture-fit.ts";

/**
 * The event with its capture fitted to `maxBytes`, as the consumers read it from its frame, the
 * frame's size, and whether it was cut.
 */
function withCapture(event: CallEventBytes, parts: CaptureParts, maxBytes: number) {
  const { frame, cut } = fitCapture({ ...event }, parts, maxBytes);
  const read = readCallEvent(frame);
  if (!("event" in read)) throw new Error(read.problem);
  return { event: read.event, bytes: frame.length, cut };
}

const decoded = (body: { encoding: "utf8" | "base64"; data: string }) =>
  Buffer.from(body.data, body.encoding);

function parts(
  request: Buffer,
  answer: Buffer,
  answerOmitted = 0,
  answerTimeline: number[] | null = null,
): CaptureParts {
  return {
    requestHeaders: { "content-type": "application/json" },
    responseHeaders: { "content-type": "application/json" },
    request,
    answer,
    answerOmitted,
    answerTimeline,
  };
}

describe("a call event's capture, fitted to the bus's largest message", () => {
  const event: CallEventBytes = { ...testCallEvent(), capture: null };
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

  it("keeps a stream's timeline as [offset, ms] pairs, only the chunks that start in the kept answer", () => {
    const answer = Buffer.from("data: 1\n\ndata: 2\n\n");
    const whole = withCapture(event, parts(Buffer.alloc(0), answer, 0, [0, 12.34, 10, 40.06]), mib);
    expect(whole.event.capture!.response_frames).toEqual([
      [0, 12.3],
      [10, 40.1],
    ]);
    const request = Buffer.from("x".repeat(mib));
    const cut = withCapture(event, parts(request, answer, 0, [0, 1, 10, 2]), mib);
    const kept = decoded(cut.event.capture!.response_body).length;
    expect(cut.event.capture!.response_frames).toEqual(
      kept > 10
        ? [
            [0, 1],
            [10, 2],
          ]
        : kept > 0
          ? [[0, 1]]
          : [],
    );
    expect(withCapture(event, parts(request.subarray(0, 9), answer), mib).event.capture).not.toHaveProperty(
      "response_frames",
    );
  });

  it("cuts both bodies past the limit to prefixes, and counts what it left out", () => {
    // "é" is 2 bytes: a cut in the middle of one would turn the text to base64
    const request = Buffer.from(`{"content":"${"é".repeat(mib)}"}`);
    const answer = Buffer.from(`{"text":"${"a\n".repeat(mib)}"}`); // escaping doubles each \n
    const { event: fitted, bytes, cut } = withCapture(event, parts(request, answer, 5), mib);
    expect(cut).toBe(true);
    expect(bytes).toBeLessThanOrEqual(mib);
    expect(bytes).toBeGreaterThan(mib - 8); // the room is used up to a character's cut
    const capture = fitted.capture!;
    expect(capture.request_body.encoding).toBe("utf8");
    const keptRequest = decoded(capture.request_body);
    const keptAnswer = decoded(capture.response_body);
    // Buffer.equals: a deep toEqual over a megabyte takes seconds
    expect(request.subarray(0, keptRequest.length).equals(keptRequest)).toBe(true);
    expect(answer.subarray(0, keptAnswer.length).equals(keptAnswer)).toBe(true);
    expect(capture.request_body_omitted_bytes).toBe(request.length - keptRequest.length);
    expect(capture.response_body_omitted_bytes).toBe(answer.length - keptAnswer.length + 5);
    // the room is shared: each body keeps about its half
    expect(keptRequest.length).toBeGreaterThan(mib * 0.45);
    expect(keptAnswer.length).toBeGreaterThan(mib * 0.45);
  });

  it("keeps a small body whole and gives the room it leaves to the large one", () => {
    const request = Buffer.from('{"model":"m"}');
    const answer = Buffer.alloc(3 * mib, "x");
    const { event: fitted, bytes, cut } = withCapture(event, parts(request, answer), mib);
    expect(cut).toBe(true);
    expect(bytes).toBeLessThanOrEqual(mib);
    expect(decoded(fitted.capture!.request_body)).toEqual(request);
    expect(fitted.capture).not.toHaveProperty("request_body_omitted_bytes");
    expect(decoded(fitted.capture!.response_body).length).toBeGreaterThan(mib * 0.95);
  });

  it("keeps the headers and no body when the rest of the frame leaves no room, and uses what room there is", () => {
    const request = Buffer.alloc(64 * 1024, "r");
    // the frame with the headers and no body, all of the request counted as omitted
    const bare = frameCallEvent({
      ...event,
      capture: {
        request_headers: { "content-type": "application/json" },
        response_headers: { "content-type": "application/json" },
        request_body: Buffer.alloc(0),
        response_body: Buffer.alloc(0),
        request_body_omitted_bytes: request.length,
      },
    }).bytes;
    const { event: fitted, bytes, cut } = withCapture(event, parts(request, Buffer.alloc(0)), bare);
    expect(cut).toBe(true);
    expect(bytes).toBe(bare);
    expect(fitted.capture!.request_body.data).toBe("");
    expect(fitted.capture!.request_body_omitted_bytes).toBe(request.length);
    expect(fitted.usage).toEqual(event.usage);

    // ten bytes more: ten bytes of the request (its omitted count has no more digits than before)
    const ten = withCapture(event, parts(request, Buffer.alloc(0)), bare + 10);
    expect(ten.event.capture!.request_body.data).toBe("r".repeat(10));
    expect(ten.bytes).toBeLessThanOrEqual(bare + 10);

    // not even the headers fit: the call's record goes without its capture
    const none = withCapture(event, parts(request, Buffer.alloc(0)), bare - 1);
    expect(none.cut).toBe(true);
    expect(none.event.capture).toBeNull();
    expect(none.event.request_id).toBe(event.request_id);
  });

  it("counts everything beside the bodies: a long model name takes room from them", () => {
    // the caller's model name is in the event twice (requested and served)
    const model = "m".repeat(160_000);
    const named = { ...event, requested_model: model, served_model: model };
    const request = Buffer.alloc(100_000, "r");
    const { event: fitted, bytes, cut } = withCapture(named, parts(request, Buffer.alloc(0)), 400 * 1024);
    expect(cut).toBe(true);
    expect(bytes).toBeLessThanOrEqual(400 * 1024);
    expect(fitted.requested_model).toBe(model);
    expect(fitted.capture!.request_body_omitted_bytes).toBeGreaterThan(0);
  });
});
