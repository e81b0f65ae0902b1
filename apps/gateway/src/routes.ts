import { type EndpointSpec, endpointSpecs, type WireFormat } from "@gateway/providers";

const postRoutes = new Map<string, EndpointSpec>([
  ["/v1/messages", endpointSpecs.messages],
  ["/v1/messages/count_tokens", endpointSpecs.count_tokens],
  ["/v1/chat/completions", endpointSpecs.chat_completions],
  ["/v1/responses", endpointSpecs.responses],
  ["/v1/responses/compact", endpointSpecs.responses_compact],
]);

export interface MatchedRoute {
  spec: EndpointSpec;
  /** The query string as received, `?` included, forwarded upstream unchanged (e.g. `?beta=true`). */
  query: string;
}

/** Matches on the path alone: clients such as Claude Code add `?beta=true`. */
export function matchRoute(method: string | undefined, url: string): MatchedRoute | null {
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  const spec = method === "POST" ? postRoutes.get(path) : undefined;
  return spec ? { spec, query: q === -1 ? "" : url.slice(q) } : null;
}

/** The error format for a path no route matched: provider A's under /v1/messages, B's elsewhere. */
export function wireFormatForPath(url: string): WireFormat {
  return url.startsWith("/v1/messages") ? "messages" : "chat_completions";
}

/** The probes a load balancer or an orchestrator asks (GET, no authentication). */
export const probePaths: ReadonlySet<string> = new Set(["/healthz", "/livez", "/readyz"]);

/** Paths the gateway answers; everything else belongs to the control plane. */
export function isGatewayPath(url: string): boolean {
  return url.startsWith("/v1/") || probePaths.has(url.split("?")[0]!);
}
