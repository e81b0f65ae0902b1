import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";

type HeaderValue = string | string[] | undefined;

// Connection-level headers are never forwarded (RFC 9110 section 7.6.1).
const hopByHop = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Headers that carry a credential: ours, the caller's upstream key, or a session. */
const credentialHeaders = new Set([
  "authorization",
  "x-api-key",
  "x-gateway-upstream-key",
  "cookie",
  "set-cookie",
  "proxy-authorization",
]);

/**
 * The request headers sent upstream: the caller's own provider headers pass through
 * (`anthropic-version`, `anthropic-beta`, `openai-*`, ...); our key, every `x-gateway-*` header
 * and connection-level headers do not. Bodies are asked for uncompressed, so that what is
 * captured and metered is the bytes the client receives.
 */
export function upstreamRequestHeaders(
  incoming: IncomingHttpHeaders,
  credential: { name: string; value: string },
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || hopByHop.has(name) || name.startsWith("x-gateway-")) continue;
    if (name === "host" || name === "content-length" || name === "authorization" || name === "x-api-key")
      continue;
    out[name] = value;
  }
  out["accept-encoding"] = "identity";
  out[credential.name] = credential.value;
  return out;
}

/** The upstream's response headers as sent to the client, without connection-level ones. */
export function downstreamResponseHeaders(upstream: Record<string, HeaderValue>): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(upstream)) {
    if (value === undefined || hopByHop.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** Headers as stored in a capture: every credential removed, repeated values joined. */
export function captureHeaders(headers: Record<string, HeaderValue | number>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || credentialHeaders.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}

export function singleHeader(value: HeaderValue): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
