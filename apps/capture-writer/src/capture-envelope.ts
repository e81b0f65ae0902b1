import type { CallEvent } from "@gateway/contracts";

/** `captures/<org_id>/<project_id>/<api_key_id>/<YYYY-MM-DD>/<request_id>.jsonl`, dated by receipt (UTC). */
export function captureKey(event: CallEvent): string {
  const day = event.received_at.slice(0, 10);
  return `captures/${event.org_id}/${event.project_id}/${event.api_key_id}/${day}/${event.request_id}.jsonl`;
}

/**
 * The stored capture: one JSON object on one line. Bodies are the raw bytes as UTF-8 text, or
 * base64 with `*_body_encoding: "base64"` when they are not valid UTF-8.
 */
export function captureEnvelope(event: CallEvent): Buffer | null {
  const capture = event.capture;
  if (!capture) return null;
  const envelope = {
    request_id: event.request_id,
    org_id: event.org_id,
    project_id: event.project_id,
    workload_id: event.workload_id,
    api_key_id: event.api_key_id,
    received_at: event.received_at,
    endpoint: event.endpoint,
    mode: event.mode,
    route: event.route,
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
    request_body: capture.request_body.data,
    request_body_encoding: capture.request_body.encoding,
    response_headers: capture.response_headers,
    response_body: capture.response_body.data,
    response_body_encoding: capture.response_body.encoding,
    // only on a body cut (an answer past the body limit, bodies past the bus's message limit):
    // the capture holds its first bytes
    ...(capture.request_body_omitted_bytes
      ? { request_body_omitted_bytes: capture.request_body_omitted_bytes }
      : {}),
    ...(capture.response_body_omitted_bytes
      ? { response_body_omitted_bytes: capture.response_body_omitted_bytes }
      : {}),
  };
  return Buffer.from(`${JSON.stringify(envelope)}\n`);
}
