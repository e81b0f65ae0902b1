/** Request headers the gateway reads and never forwards upstream. */
export const gatewayRequestHeaders = {
  upstreamKey: "x-gateway-upstream-key",
  project: "x-gateway-project",
  workload: "x-gateway-workload",
  tags: "x-gateway-tags",
  /** Names the conversation a request belongs to, so a routed workload keeps it on one arm. */
  conversation: "x-gateway-conversation",
} as const;

/** Response headers the gateway sets on every response, errors included. */
export const gatewayResponseHeaders = {
  requestId: "x-gateway-request-id",
  mode: "x-gateway-mode",
  route: "x-gateway-route",
  effectiveModel: "x-gateway-effective-model",
} as const;
