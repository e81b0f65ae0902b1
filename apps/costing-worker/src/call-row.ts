import type { CallEvent, UnpricedReason } from "@gateway/contracts";
import type { CallInsert } from "@gateway/db";

/** What a call row is made of: the event, its capture aside. */
type CallFacts = Omit<CallEvent, "capture">;

/**
 * Why a call without usage can never be priced, or `pricing_pending` when it has usage. Order
 * matters: the most specific cause wins.
 */
function initialUnpricedReason(event: CallFacts): UnpricedReason {
  if (event.endpoint === "count_tokens") return "not_billable";
  if (event.usage) return "pricing_pending";
  if (event.status >= 400 || event.error) return "error_response";
  if (event.stream && event.stream_outcome !== "complete") return "incomplete_stream";
  // Provider B sends chat-completions usage in a stream only when asked to (include_usage).
  if (event.stream && event.endpoint === "chat_completions") return "stream_without_usage";
  return "no_usage";
}

/** The call row for one event. Pricing fills in later; until then the call is `unpriced`. */
export function callRow(event: CallFacts): CallInsert {
  const usage = event.usage;
  return {
    requestId: event.request_id,
    orgId: event.org_id,
    projectId: event.project_id,
    workloadId: event.workload_id,
    apiKeyId: event.api_key_id,
    receivedAt: new Date(event.received_at),
    endpoint: event.endpoint,
    providerLabel: event.provider_label,
    mode: event.mode,
    route: event.route,
    requestedModel: event.requested_model,
    servedModel: event.served_model,
    stream: event.stream,
    status: event.status,
    firstByteMs: event.first_byte_ms,
    totalMs: event.total_ms,
    streamOutcome: event.stream_outcome,
    errorType: event.error?.type ?? null,
    refusedBy: event.refused_by ? `${event.refused_by.scope}.${event.refused_by.limit}` : null,
    fallbackReason: event.fallback_reason ?? null,
    armSource: event.arm_source ?? null,
    upstreamRequestId: event.upstream_request_id,
    upstreamResponseId: event.upstream_response_id,
    tags: event.tags,
    usageRaw: usage?.raw ?? null,
    inputTokens: usage?.input_tokens ?? null,
    cacheReadInputTokens: usage?.cache_read_input_tokens ?? null,
    cacheCreationInputTokens: usage?.cache_creation_input_tokens ?? null,
    cacheCreation5mInputTokens: usage?.cache_creation_5m_input_tokens ?? null,
    cacheCreation1hInputTokens: usage?.cache_creation_1h_input_tokens ?? null,
    outputTokens: usage?.output_tokens ?? null,
    pricingStatus: "unpriced",
    unpricedReason: initialUnpricedReason(event),
  };
}
