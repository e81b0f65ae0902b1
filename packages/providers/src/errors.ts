import type { WireFormat } from "./wire-format.ts";

/** Gateway-side error kinds, each with its status and its name in both providers' vocabularies. */
const errorKinds = {
  invalid_request: { status: 400, a: "invalid_request_error", b: "invalid_request_error", code: null },
  authentication: {
    status: 401,
    a: "authentication_error",
    b: "invalid_request_error",
    code: "invalid_api_key",
  },
  not_found: { status: 404, a: "not_found_error", b: "invalid_request_error", code: "not_found" },
  model_not_found: { status: 404, a: "not_found_error", b: "invalid_request_error", code: "model_not_found" },
  request_too_large: {
    status: 413,
    a: "request_too_large",
    b: "invalid_request_error",
    code: "request_too_large",
  },
  /** Refusals by the operator's limits (issue 17): the SDKs retry a 429 after `retry-after`. */
  requests_limited: { status: 429, a: "rate_limit_error", b: "requests", code: "rate_limit_exceeded" },
  tokens_limited: { status: 429, a: "rate_limit_error", b: "tokens", code: "rate_limit_exceeded" },
  concurrency_limited: { status: 429, a: "rate_limit_error", b: "requests", code: "rate_limit_exceeded" },
  /** Provider B's quota refusal; sent with `x-should-retry: false`, as a spend limit is not over in seconds. */
  budget_exhausted: {
    status: 429,
    a: "rate_limit_error",
    b: "insufficient_quota",
    code: "insufficient_quota",
  },
  upstream_unavailable: { status: 502, a: "api_error", b: "server_error", code: "upstream_unavailable" },
  upstream_timeout: { status: 504, a: "timeout_error", b: "server_error", code: "upstream_timeout" },
  model_unavailable: { status: 503, a: "overloaded_error", b: "server_error", code: "model_unavailable" },
  /** The gateway could not read its own configuration (the key, project or model) in time. */
  config_unavailable: { status: 503, a: "api_error", b: "server_error", code: "config_unavailable" },
  internal: { status: 500, a: "api_error", b: "server_error", code: "internal_error" },
} as const;

export type GatewayErrorKind = keyof typeof errorKinds;

export interface GatewayErrorResponse {
  status: number;
  body: string;
  /** The provider error type, for the call record. */
  type: string;
}

/** An error the gateway itself raises, in the error format of the endpoint it was raised on. */
export function gatewayError(
  format: WireFormat,
  kind: GatewayErrorKind,
  message: string,
  requestId: string,
  param: string | null = null,
): GatewayErrorResponse {
  const spec = errorKinds[kind];
  if (format === "messages") {
    return {
      status: spec.status,
      type: spec.a,
      body: JSON.stringify({ type: "error", error: { type: spec.a, message }, request_id: requestId }),
    };
  }
  return {
    status: spec.status,
    type: spec.b,
    body: JSON.stringify({ error: { message, type: spec.b, param, code: spec.code } }),
  };
}
