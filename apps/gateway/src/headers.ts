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

/**
 * Never sent upstream: the host and length are the upstream request's own, the key headers are
 * replaced by the upstream credential, and `expect: 100-continue` was already answered by node
 * (undici refuses to send it).
 */
const notForwarded = new Set(["host", "content-length", "authorization", "x-api-key", "expect"]);

/**
 * The caller's own provider account scoping; sent next to the operator's key it would name an
 * account the key does not belong to.
 */
const callerAccountHeaders = new Set(["openai-organization", "openai-project", "anthropic-workspace-id"]);

/**
 * Headers that may carry a credential: ours, the caller's upstream key, a session, or any other
 * provider's key header (`api-key`, `x-goog-api-key`, `x-amz-security-token`, ...). Told by the
 * words in the name, since a client may send any provider's header; a header that is no secret
 * but says so in its name (`idempotency-key`) is left out of captures too, which costs nothing.
 */
const credentialWords = /auth|key|token|secret|passw|cookie|session|credential|signature/;
const isCredentialHeader = (name: string) => credentialWords.test(name);

/**
 * The request headers sent upstream: the caller's own provider headers pass through
 * (`anthropic-version`, `anthropic-beta`, `openai-*`, ...); our key, every `x-gateway-*` header
 * and connection-level headers do not. Bodies are asked for uncompressed, so that what is
 * captured and metered is the bytes the client receives.
 */
export function upstreamRequestHeaders(
  incoming: IncomingHttpHeaders,
  credential: { name: string; value: string },
  operatorPaid: boolean,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  // Headers the caller named in `Connection` are connection-level too (RFC 9110 section 7.6.1).
  const named =
    singleHeader(incoming.connection)
      ?.toLowerCase()
      .split(",")
      .map((n) => n.trim()) ?? [];
  // (`for…in` rather than `Object.entries`: no array per header on every call)
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined || hopByHop.has(name) || name.startsWith("x-gateway-") || named.includes(name))
      continue;
    if (notForwarded.has(name) || (operatorPaid && callerAccountHeaders.has(name))) continue;
    out[name] = value;
  }
  out["accept-encoding"] = "identity";
  out[credential.name] = credential.value;
  return out;
}

/**
 * The response headers the client gets: the upstream's without connection-level ones, and the
 * gateway's own, which win over an upstream's of the same name.
 */
export function downstreamResponseHeaders(
  upstream: Record<string, HeaderValue>,
  ours: Record<string, string>,
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const name in upstream) {
    const value = upstream[name];
    if (value === undefined || hopByHop.has(name)) continue;
    out[name] = value;
  }
  for (const name in ours) out[name] = ours[name];
  return out;
}

/** Headers as stored in a capture: every credential removed, repeated values joined. */
export function captureHeaders(headers: Record<string, HeaderValue | number>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || isCredentialHeader(name)) continue;
    out[name] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}

export function singleHeader(value: HeaderValue): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
