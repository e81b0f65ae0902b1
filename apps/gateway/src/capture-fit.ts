import { type CallCaptureBytes, type CallEventBytes, frameCallEvent } from "@gateway/contracts";
import { utf8Boundary } from "./body-recorder.ts";

/** What a call's capture is made of, before it is framed into its event. */
export interface CaptureParts {
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  request: Buffer;
  answer: Buffer;
  /** Bytes of the answer the gateway did not keep (past its body limit, or lost with its spill). */
  answerOmitted: number;
  /** A streamed answer's chunks: flat `[offset, ms, ...]` (see `BodyRecorder.timeline`); null otherwise. */
  answerTimeline: number[] | null;
}

/** The timeline's chunks that start inside the kept answer, as `[offset, ms]` (ms to 0.1). */
function framesOf(timeline: number[], answerKept: number): [number, number][] {
  const frames: [number, number][] = [];
  for (let i = 0; i < timeline.length && timeline[i]! < answerKept; i += 2)
    frames.push([timeline[i]!, Math.round(timeline[i + 1]! * 10) / 10]);
  return frames;
}

/** The capture holding the first `requestKept` and `answerKept` bytes of each body. */
function captureOf(parts: CaptureParts, requestKept: number, answerKept: number): CallCaptureBytes {
  const requestOmitted = parts.request.length - requestKept;
  const answerOmitted = parts.answerOmitted + parts.answer.length - answerKept;
  return {
    request_headers: parts.requestHeaders,
    response_headers: parts.responseHeaders,
    request_body: parts.request.subarray(0, requestKept),
    response_body: parts.answer.subarray(0, answerKept),
    ...(requestOmitted > 0 ? { request_body_omitted_bytes: requestOmitted } : {}),
    ...(answerOmitted > 0 ? { response_body_omitted_bytes: answerOmitted } : {}),
    ...(parts.answerTimeline ? { response_frames: framesOf(parts.answerTimeline, answerKept) } : {}),
  };
}

/**
 * Sets `event.capture` and frames the event: the capture whole when the frame fits in `maxBytes`
 * (the bus's largest message), else with its bodies cut so that it does, and says whether it cut:
 * the call's record (status, usage, cost) must reach the consumers even when its bodies cannot,
 * and the capture says what it left out (`*_body_omitted_bytes`). The bodies travel as their bytes,
 * so the room the rest of the frame leaves is exact; it goes to the two bodies, half each, a body
 * that needs less than its half giving the rest to the other, each cut at a character. When not
 * even the capture's headers fit, the event goes without a capture.
 */
export function fitCapture(
  event: CallEventBytes,
  parts: CaptureParts,
  maxBytes: number,
): { frame: Buffer; cut: boolean } {
  event.capture = captureOf(parts, parts.request.length, parts.answer.length);
  const whole = frameCallEvent(event);
  if (whole.bytes <= maxBytes) return { frame: whole.encode(), cut: false };

  // Bare, the capture counts every byte as omitted: a cut's counts are never longer.
  event.capture = captureOf(parts, 0, 0);
  const room = maxBytes - frameCallEvent(event).bytes;
  if (room < 0) {
    event.capture = null;
  } else {
    const requestBudget = Math.max(Math.min(parts.request.length, room / 2), room - parts.answer.length);
    const kept = (body: Buffer, budget: number) =>
      utf8Boundary(body, Math.min(body.length, Math.floor(budget)));
    event.capture = captureOf(
      parts,
      kept(parts.request, requestBudget),
      kept(parts.answer, room - requestBudget),
    );
  }
  return { frame: frameCallEvent(event).encode(), cut: true };
}
