import type { OutgoingHttpHeaders } from "node:http";
import { jsonReply, type Reply } from "../reply.ts";

export interface OpenAiError {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

export const SERVER_ERROR: OpenAiError = {
  message: "The server had an error while processing your request. Sorry about that!",
  type: "server_error",
  param: null,
  code: null,
};

/** Provider B's usual error for each status (§2.5). */
function errorFor(status: number, model: string | undefined): OpenAiError {
  switch (status) {
    case 401:
      return {
        message:
          "Incorrect API key provided: sk-mo***ck. You can find your API key at https://platform.openai.com/account/api-keys.",
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      };
    case 403:
      return {
        message: "Country, region, or territory not supported",
        type: "request_forbidden",
        param: null,
        code: "unsupported_country_region_territory",
      };
    case 404:
      return {
        message: `The model \`${model ?? "unknown"}\` does not exist or you do not have access to it.`,
        type: "invalid_request_error",
        param: null,
        code: "model_not_found",
      };
    case 429:
      return {
        message:
          `Rate limit reached for ${model ?? "default"} in organization org-mock on tokens per min (TPM): ` +
          "Limit 30000, Used 30000, Requested 1200. Please try again in 1s. " +
          "Visit https://platform.openai.com/account/rate-limits to learn more.",
        type: "tokens",
        param: null,
        code: "rate_limit_exceeded",
      };
    case 503:
      return {
        message: "The server is overloaded or not ready yet.",
        type: "service_unavailable_error",
        param: null,
        code: "server_is_overloaded",
      };
    default:
      return status < 500
        ? { message: "Invalid request.", type: "invalid_request_error", param: null, code: null }
        : SERVER_ERROR;
  }
}

/** `{"error":{message,type,param,code}}`, the shape of every B error body. */
export function errorReply(status: number, error: OpenAiError, headers: OutgoingHttpHeaders): Reply {
  const extra: OutgoingHttpHeaders = { ...headers };
  // Clients back off on these; 1 s keeps retrying tests fast.
  if (status === 429 || status === 503) extra["retry-after"] = "1";
  return jsonReply(status, extra, { error });
}

export function injectedErrorReply(
  status: number,
  model: string | undefined,
  headers: OutgoingHttpHeaders,
): Reply {
  return errorReply(status, errorFor(status, model), headers);
}

export function invalidRequest(
  message: string,
  headers: OutgoingHttpHeaders,
  param: string | null = null,
  code: string | null = null,
): Reply {
  return errorReply(400, { message, type: "invalid_request_error", param, code }, headers);
}

export function missingParameter(param: string, headers: OutgoingHttpHeaders): Reply {
  return invalidRequest(
    `Missing required parameter: '${param}'.`,
    headers,
    param,
    "missing_required_parameter",
  );
}

export const NO_API_KEY: OpenAiError = {
  message:
    "You didn't provide an API key. You need to provide your API key in an Authorization header using " +
    "Bearer auth (i.e. Authorization: Bearer YOUR_KEY). You can obtain an API key from " +
    "https://platform.openai.com/account/api-keys.",
  type: "invalid_request_error",
  param: null,
  code: "invalid_api_key",
};

export const MALFORMED_JSON =
  "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your " +
  "HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON. " +
  "If you have trouble figuring out how to fix this, please contact us through our help center at " +
  "help.openai.com.)";
