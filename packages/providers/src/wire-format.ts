import type { GatewayEndpoint, ProviderLabel, WireFormat } from "@gateway/contracts";

export type { WireFormat };

export interface EndpointSpec {
  endpoint: GatewayEndpoint;
  /** Path upstream, relative to the provider's base URL (which carries no `/v1`). */
  upstreamPath: string;
  wireFormat: WireFormat;
  /** Provider whose public API serves this endpoint in bring-your-own-key mode. */
  provider: Exclude<ProviderLabel, "managed">;
  /** Whether the response body carries token usage that is billed. */
  billable: boolean;
}

export const endpointSpecs: Record<GatewayEndpoint, EndpointSpec> = {
  messages: {
    endpoint: "messages",
    upstreamPath: "/v1/messages",
    wireFormat: "messages",
    provider: "provider_a",
    billable: true,
  },
  count_tokens: {
    endpoint: "count_tokens",
    upstreamPath: "/v1/messages/count_tokens",
    wireFormat: "messages",
    provider: "provider_a",
    billable: false,
  },
  chat_completions: {
    endpoint: "chat_completions",
    upstreamPath: "/v1/chat/completions",
    wireFormat: "chat_completions",
    provider: "provider_b",
    billable: true,
  },
  responses: {
    endpoint: "responses",
    upstreamPath: "/v1/responses",
    wireFormat: "responses",
    provider: "provider_b",
    billable: true,
  },
  responses_compact: {
    endpoint: "responses_compact",
    upstreamPath: "/v1/responses/compact",
    wireFormat: "responses",
    provider: "provider_b",
    billable: true,
  },
};

/** The header that carries the upstream's own credential: provider A's for the messages format, B's otherwise. */
export function upstreamCredentialHeader(format: WireFormat, key: string) {
  return format === "messages"
    ? { name: "x-api-key", value: key }
    : { name: "authorization", value: `Bearer ${key}` };
}

/** The response header in which the upstream names its own request id. */
export function upstreamRequestIdHeader(format: WireFormat): string {
  return format === "messages" ? "request-id" : "x-request-id";
}
