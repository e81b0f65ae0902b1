import type { CallEvent } from "@gateway/contracts";
import type { calls } from "@gateway/db";

/** The call row for one event. Pricing fills in later; until then the call is `unpriced`. */
export function callRow(event: CallEvent): typeof calls.$inferInsert {
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
    unpricedReason: usage ? "pricing_pending" : "no_usage",
  };
}
