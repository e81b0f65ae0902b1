/** Who served a call. `managed` is the service's own serving infrastructure. */
export const providerLabels = ["provider_a", "provider_b", "managed"] as const;
export type ProviderLabel = (typeof providerLabels)[number];

/** The three body formats the gateway speaks; each maps to one usage and error convention. */
export const wireFormats = ["messages", "chat_completions", "responses"] as const;
export type WireFormat = (typeof wireFormats)[number];

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

/**
 * How a routed workload chose a request's arm: from its conversation (`affinity`: every request
 * of the conversation gets the same arm) or drawn on its own (`draw`: the request named none).
 */
export const armSources = ["affinity", "draw"] as const;
export type ArmSource = (typeof armSources)[number];

/** Why a routed call was re-issued to the workload's original model. */
export const fallbackReasons = ["timeout", "error"] as const;
export type FallbackReason = (typeof fallbackReasons)[number];

export const streamOutcomes = ["complete", "truncated", "upstream_error", "client_aborted"] as const;
export type StreamOutcome = (typeof streamOutcomes)[number];
