import type { IncomingHttpHeaders } from "node:http";
import { asObject, asString, modelOf, parseJson } from "../json.ts";
import { type MockRequest, startMockServer } from "../mock-server.ts";
import { bodyTokens } from "../mock-text.ts";
import { jsonReply, type Reply } from "../reply.ts";
import { seedFrom } from "../seed.ts";
import type { MockProvider, MockProviderOptions } from "../types.ts";
import { errorReply, injectedErrorReply, invalidRequest } from "./errors.ts";
import { messagesReply } from "./messages.ts";

type Route = "messages" | "count_tokens";

function routeOf(method: string, pathname: string): Route | undefined {
  if (method !== "POST") return undefined;
  if (pathname === "/v1/messages") return "messages";
  if (pathname === "/v1/messages/count_tokens") return "count_tokens";
  return undefined;
}

function hasHeader(headers: IncomingHttpHeaders, name: string): boolean {
  const value = headers[name];
  return typeof value === "string" && value.trim() !== "";
}

/**
 * The API takes `x-api-key` or `Authorization: Bearer` (§1.1), and the installed SDK (1.x) sends its
 * `apiKey` as a bearer token, so rejecting bearer-only requests would break the official client.
 */
function hasCredentials(headers: IncomingHttpHeaders): boolean {
  return hasHeader(headers, "x-api-key") || /^Bearer\s+\S/i.test(headers.authorization ?? "");
}

function respond(request: MockRequest): Reply {
  const { body, headers, faults } = request;
  const route = routeOf(request.method, request.pathname);
  // Ids depend on the route and the exact body bytes only (unless `freshIds`), so a proxied request
  // gets identical output.
  const seed = seedFrom(`provider-a ${route ?? request.pathname}${request.seedSalt}`, body);
  const requestId = `req_011C${seed.base62("request-id", 20)}`;

  if (faults.status !== undefined) return injectedErrorReply(faults.status, modelOf(body), requestId);
  if (route === undefined) return errorReply(404, "not_found_error", "Not Found", requestId);
  if (!hasCredentials(headers)) {
    return errorReply(401, "authentication_error", "x-api-key header is required", requestId);
  }
  if (!hasHeader(headers, "anthropic-version")) {
    return invalidRequest("anthropic-version: header is required", requestId);
  }

  const parsed = parseJson(body);
  if (!parsed.ok) {
    return invalidRequest("There was an error parsing the body of your request: invalid JSON", requestId);
  }
  const json = asObject(parsed.value);
  if (json === undefined) return invalidRequest("Input should be a valid dictionary", requestId);
  const model = asString(json.model);
  if (model === undefined) return invalidRequest("model: Field required", requestId);
  if (!Array.isArray(json.messages)) return invalidRequest("messages: Field required", requestId);

  const responseHeaders = { "request-id": requestId };
  if (route === "count_tokens") {
    return jsonReply(200, responseHeaders, { input_tokens: bodyTokens(body) });
  }
  if (typeof json.max_tokens !== "number") return invalidRequest("max_tokens: Field required", requestId);
  return messagesReply({
    request: json,
    model,
    body,
    seed,
    headers: responseHeaders,
    midstreamError: faults.midstreamError,
    answerBytes: faults.answerBytes,
  });
}

/** A local stand-in for provider A (Anthropic Messages API). */
export function startMockProviderA(opts?: MockProviderOptions): Promise<MockProvider> {
  return startMockServer(respond, opts);
}
