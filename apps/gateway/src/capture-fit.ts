import { isUtf8 } from "node:buffer";
import type { CallCapture, CallEvent, RawBody } from "@gateway/contracts";
import { utf8Boundary } from "./body-recorder.ts";

/** What a call's capture is made of, before it is encoded into its event. */
export interface CaptureParts {
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string>;
  request: Buffer;
  answer: Buffer;
  /** Bytes of the answer the gateway did not keep (past its body limit, or lost with its spill). */
  answerOmitted: number;
}

/** Room left for what the bus adds around an event, and for rounding in the share of the bodies. */
const slackBytes = 64 * 1024;

function toRawBody(bytes: Buffer): RawBody {
  return isUtf8(bytes)
    ? { encoding: "utf8", data: bytes.toString("utf8") }
    : { encoding: "base64", data: bytes.toString("base64") };
}

/** The capture holding the first `requestKept` and `answerKept` bytes of each body. */
function captureOf(parts: CaptureParts, requestKept: number, answerKept: number): CallCapture {
  const requestOmitted = parts.request.length - requestKept;
  const answerOmitted = parts.answerOmitted + parts.answer.length - answerKept;
  return {
    request_headers: parts.requestHeaders,
    response_headers: parts.responseHeaders,
    request_body: toRawBody(parts.request.subarray(0, requestKept)),
    response_body: toRawBody(parts.answer.subarray(0, answerKept)),
    ...(requestOmitted > 0 ? { request_body_omitted_bytes: requestOmitted } : {}),
    ...(answerOmitted > 0 ? { response_body_omitted_bytes: answerOmitted } : {}),
  };
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** The first bytes of `body` whose encoding takes about `budget` bytes of JSON, cut at a character. */
function keptWithin(body: Buffer, encodedBytes: number, budget: number): number {
  if (encodedBytes <= budget) return body.length;
  return utf8Boundary(body, Math.floor((body.length * Math.max(0, budget)) / encodedBytes));
}

/**
 * Sets `event.capture`: whole when the event fits in `maxBytes` of JSON (the bus's largest
 * message), else with its bodies cut so that it does, and says whether it cut: the call's record
 * (status, usage, cost) must reach the consumers even when its bodies cannot, and the capture says
 * what it left out (`*_body_omitted_bytes`). The room the rest of the event leaves goes to the two
 * bodies, half each, a body that needs less than its half giving the rest to the other. Only an
 * event that can come near the limit is measured: JSON writes a byte as at most 6 characters, so
 * the bodies' length times 6 bounds it.
 */
export function fitCapture(event: CallEvent, parts: CaptureParts, maxBytes: number): boolean {
  const whole = captureOf(parts, parts.request.length, parts.answer.length);
  event.capture = whole;
  if ((parts.request.length + parts.answer.length) * 6 + slackBytes <= maxBytes) return false;
  if (jsonBytes(event) <= maxBytes) return false;

  event.capture = captureOf(parts, 0, 0);
  const bare = event.capture;
  const room = maxBytes - jsonBytes(event) - slackBytes;
  const requestBytes = jsonBytes(whole.request_body.data);
  const answerBytes = jsonBytes(whole.response_body.data);
  const requestBudget = Math.max(Math.min(requestBytes, room / 2), room - answerBytes);
  event.capture = captureOf(
    parts,
    keptWithin(parts.request, requestBytes, requestBudget),
    keptWithin(parts.answer, answerBytes, room - requestBudget),
  );
  // a body whose first part escapes more than its average can still be over: then none is kept
  if (jsonBytes(event) > maxBytes) event.capture = bare;
  return true;
}
