/** Who served a call. `managed` is the service's own serving infrastructure. */
export const providerLabels = ["provider_a", "provider_b", "managed"] as const;
export type ProviderLabel = (typeof providerLabels)[number];

/** The gateway endpoints, by the wire format they speak. */
export const gatewayEndpoints = [
  "messages",
  "count_tokens",
  "chat_completions",
  "responses",
  "responses_compact",
] as const;
export type GatewayEndpoint = (typeof gatewayEndpoints)[number];

/** Whose credential paid: the caller's upstream key (`byo`) or the operator's (`managed`). */
export const gatewayModes = ["byo", "managed"] as const;
export type GatewayMode = (typeof gatewayModes)[number];

/** Which arm served the request; matches workload-status route_shares. */
export const gatewayRoutes = ["primary", "gateway", "fallback"] as const;
export type GatewayRoute = (typeof gatewayRoutes)[number];

export const streamOutcomes = ["complete", "truncated", "upstream_error", "client_aborted"] as const;
export type StreamOutcome = (typeof streamOutcomes)[number];
