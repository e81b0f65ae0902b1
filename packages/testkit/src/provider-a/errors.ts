import type { OutgoingHttpHeaders } from "node:http";
import { jsonReply, type Reply } from "../reply.ts";

interface ErrorKind {
  type: string;
  message: string;
}

/** Provider A's documented status → error type table, with the provider's usual wording. */
function kindFor(status: number, model: string | undefined): ErrorKind {
  switch (status) {
    case 400:
      return { type: "invalid_request_error", message: "Your request was malformed or invalid." };
    case 401:
      return { type: "authentication_error", message: "invalid x-api-key" };
    case 402:
      return {
        type: "billing_error",
        message: "Your credit balance is too low to access the Anthropic API.",
      };
    case 403:
      return {
        type: "permission_error",
        message: "Your API key does not have permission to use the specified resource.",
      };
    case 404:
      return { type: "not_found_error", message: model ? `model: ${model}` : "Not found" };
    case 413:
      return { type: "request_too_large", message: "Request exceeds the maximum allowed number of bytes." };
    case 429:
      return {
        type: "rate_limit_error",
        message:
          "This request would exceed the rate limit for your organization of 50 requests per minute. " +
          "For details, refer to: https://docs.claude.com/en/api/rate-limits.",
      };
    case 500:
      return { type: "api_error", message: "Internal server error" };
    case 504:
      return { type: "timeout_error", message: "Request timed out" };
    case 529:
      return { type: "overloaded_error", message: "Overloaded" };
    default:
      return status < 500
        ? { type: "invalid_request_error", message: "Your request was malformed or invalid." }
        : { type: "api_error", message: "Internal server error" };
  }
}

/** `{"type":"error","error":{...},"request_id":...}`, the shape of every A error body. */
export function errorReply(status: number, type: string, message: string, requestId: string): Reply {
  const headers: OutgoingHttpHeaders = { "request-id": requestId };
  // Clients back off on these; 1 s keeps retrying tests fast.
  if (status === 429 || status === 529) headers["retry-after"] = "1";
  return jsonReply(status, headers, { type: "error", error: { type, message }, request_id: requestId });
}

/** The body for an `x-mock-status` fault. */
export function injectedErrorReply(status: number, model: string | undefined, requestId: string): Reply {
  const kind = kindFor(status, model);
  return errorReply(status, kind.type, kind.message, requestId);
}

export function invalidRequest(message: string, requestId: string): Reply {
  return errorReply(400, "invalid_request_error", message, requestId);
}
