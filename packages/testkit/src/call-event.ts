import { type CallEvent, type CallUsage, callsTopic, newId } from "@gateway/contracts";

/**
 * A valid call event, as JSON (the gateway publishes its frame, `frameCallEvent`; consumers read
 * both): a BYO, non-streamed provider B call answered
 * now, with a fresh request id and no usage; `overrides` set whatever a test is about.
 */
export function testCallEvent(overrides: Partial<CallEvent> = {}): CallEvent {
  return {
    schema: callsTopic,
    request_id: newId("request"),
    org_id: "org_1",
    project_id: "proj_1",
    workload_id: "usp_1",
    api_key_id: "api_key_1",
    received_at: new Date().toISOString(),
    endpoint: "chat_completions",
    provider_label: "provider_b",
    mode: "byo",
    route: "primary",
    requested_model: "gpt-5.4-mini",
    served_model: "gpt-5.4-mini",
    stream: false,
    status: 200,
    first_byte_ms: 1,
    total_ms: 2,
    stream_outcome: "complete",
    error: null,
    upstream_request_id: null,
    upstream_response_id: null,
    tags: {},
    usage: null,
    capture: null,
    ...overrides,
  };
}

/** Usage without cache traffic. */
export function plainUsage(inputTokens: number, outputTokens: number): CallUsage {
  return {
    input_tokens: inputTokens,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_creation_5m_input_tokens: 0,
    cache_creation_1h_input_tokens: 0,
    output_tokens: outputTokens,
    raw: {},
  };
}
