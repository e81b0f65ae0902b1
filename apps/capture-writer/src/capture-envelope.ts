import type { CallEventWithBodies, CaptureBody } from "@gateway/contracts";
import { type BytePiece, joinPieces, jsonStringPieces } from "./json-string-bytes.ts";

/**
 * The stored capture: one JSON object on one line. Bodies are the raw bytes as UTF-8 text, or
 * base64 with `*_body_encoding: "base64"` when they are not valid UTF-8. The bytes are those of
 * `JSON.stringify` of the envelope (fields in the order below), with the bodies escaped without
 * decoding them from UTF-8 (`jsonStringPieces`).
 */
export function captureEnvelope(call: CallEventWithBodies): Buffer | null {
  const parts = captureEnvelopeParts(call);
  return parts && joinPieces(parts);
}

/**
 * The stored capture's bytes in the pieces they are made of, to be copied once into a segment
 * (joining each capture first copied every capture's bytes twice).
 */
export function captureEnvelopeParts({ event, bodies }: CallEventWithBodies): BytePiece[] | null {
  const capture = event.capture;
  if (!capture || !bodies) return null;
  const head = {
    request_id: event.request_id,
    org_id: event.org_id,
    project_id: event.project_id,
    workload_id: event.workload_id,
    api_key_id: event.api_key_id,
    received_at: event.received_at,
    endpoint: event.endpoint,
    mode: event.mode,
    route: event.route,
    // how the workload's route chose the arm (`affinity` or `draw`): only when a route applied,
    // so that a capture of a workload without one reads as it always did
    ...(event.arm_source ? { arm_source: event.arm_source } : {}),
    requested_model: event.requested_model,
    served_model: event.served_model,
    provider_label: event.provider_label,
    stream: event.stream,
    status: event.status,
    first_byte_ms: event.first_byte_ms,
    total_ms: event.total_ms,
    stream_outcome: event.stream_outcome,
    error: event.error,
    tags: event.tags,
    request_headers: capture.request_headers,
  };
  // after the bodies, each only when it applies: the bytes left out on a body cut (an answer past
  // the body limit, bodies past the bus's message limit: the capture holds their first bytes)
  const tail = {
    ...(capture.request_body_omitted_bytes
      ? { request_body_omitted_bytes: capture.request_body_omitted_bytes }
      : {}),
    ...(capture.response_body_omitted_bytes
      ? { response_body_omitted_bytes: capture.response_body_omitted_bytes }
      : {}),
    // a streamed answer's chunks, [byte_offset, ms since the request was received], in order
    ...(capture.response_frames ? { response_frames: capture.response_frames } : {}),
  };
  const tailFields = JSON.stringify(tail).slice(1, -1);
  const text = (value: string) => Buffer.from(value);
  return [
    text(`${JSON.stringify(head).slice(0, -1)},"request_body":"`),
    ...bodyText(bodies.request),
    text(
      `","request_body_encoding":"${bodies.request.encoding}","response_headers":${JSON.stringify(capture.response_headers)},"response_body":"`,
    ),
    ...bodyText(bodies.response),
    text(`","response_body_encoding":"${bodies.response.encoding}"${tailFields ? `,${tailFields}` : ""}}\n`),
  ];
}

/**
 * A body as a JSON string's contents: a frame's UTF-8 escaped as bytes, or its base64 (nothing to
 * escape); a JSON event's text as `JSON.stringify` writes it, as before frames.
 */
function bodyText(body: CaptureBody): BytePiece[] {
  if ("data" in body) return [Buffer.from(JSON.stringify(body.data).slice(1, -1))];
  // base64 is ASCII: its string is its bytes, written as Latin-1
  return body.encoding === "utf8" ? jsonStringPieces(body.bytes) : [body.bytes.toString("base64")];
}
