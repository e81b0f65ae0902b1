import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import { flag } from "../faults.ts";
import { asObject, asString, type JsonObject, modelOf, parseJson } from "../json.ts";
import { type MockRequest, startMockServer } from "../mock-server.ts";
import { bodyTokens } from "../mock-text.ts";
import { jsonReply, type Reply } from "../reply.ts";
import { type Seed, seedFrom } from "../seed.ts";
import type { MockProvider, MockProviderOptions } from "../types.ts";
import { chatCompletionsReply } from "./chat-completions.ts";
import { compactReply } from "./compact.ts";
import {
  errorReply,
  injectedErrorReply,
  invalidRequest,
  MALFORMED_JSON,
  missingParameter,
  NO_API_KEY,
} from "./errors.ts";
import { MODELS, modelList } from "./models.ts";
import { responsesReply } from "./responses.ts";

const POST_ROUTES = new Set([
  "/v1/chat/completions",
  "/v1/responses",
  "/v1/responses/compact",
  "/v1/responses/input_tokens",
]);

function hasBearer(headers: IncomingHttpHeaders): boolean {
  return /^Bearer\s+\S/i.test(headers.authorization ?? "");
}

function baseHeaders(seed: Seed): OutgoingHttpHeaders {
  return {
    "x-request-id": `req_${seed.hex("request-id", 32)}`,
    "openai-processing-ms": String(seed.int("processing-ms", 40, 900)),
    "openai-version": "2020-10-01",
  };
}

function getReply(pathname: string, headers: OutgoingHttpHeaders): Reply | undefined {
  if (pathname === "/v1/models") return jsonReply(200, headers, modelList());
  if (!pathname.startsWith("/v1/models/")) return undefined;
  const id = decodeURIComponent(pathname.slice("/v1/models/".length));
  const model = MODELS.find((candidate) => candidate.id === id);
  if (model) return jsonReply(200, headers, model);
  return errorReply(
    404,
    {
      message: `The model '${id}' does not exist`,
      type: "invalid_request_error",
      param: "model",
      code: "model_not_found",
    },
    headers,
  );
}

function postReply(request: MockRequest, json: JsonObject, seed: Seed, headers: OutgoingHttpHeaders): Reply {
  const { pathname, body, faults } = request;
  if (pathname === "/v1/responses/input_tokens") {
    return jsonReply(200, headers, { object: "response.input_tokens", input_tokens: bodyTokens(body) });
  }
  if (pathname === "/v1/responses/compact") {
    if (!("model" in json)) return missingParameter("model", headers);
    return compactReply({ request: json, body, seed, headers });
  }
  const model = asString(json.model);
  const common = {
    request: json,
    body,
    seed,
    headers,
    midstreamError: faults.midstreamError,
    answerBytes: faults.answerBytes,
  };
  if (pathname === "/v1/chat/completions") {
    if (model === undefined) return invalidRequest("you must provide a model parameter", headers);
    if (!Array.isArray(json.messages)) return missingParameter("messages", headers);
    return chatCompletionsReply({ ...common, model });
  }
  if (model === undefined) return missingParameter("model", headers);
  return responsesReply({ ...common, model, doneSentinel: flag(request.headers, "x-mock-responses-done") });
}

function invalidUrl(method: string, pathname: string, headers: OutgoingHttpHeaders): Reply {
  const error = {
    message: `Invalid URL (${method} ${pathname})`,
    type: "invalid_request_error",
    param: null,
    code: null,
  };
  return errorReply(404, error, headers);
}

function respond(request: MockRequest): Reply {
  const { method, pathname, body, faults } = request;
  // Ids depend on the path and the exact body bytes only (unless `freshIds`), so a proxied request
  // gets identical output.
  const seed = seedFrom(`provider-b ${pathname}${request.seedSalt}`, body);
  const headers = baseHeaders(seed);

  if (faults.status !== undefined) return injectedErrorReply(faults.status, modelOf(body), headers);
  const known = method === "GET" ? pathname.startsWith("/v1/models") : POST_ROUTES.has(pathname);
  if (!known) return invalidUrl(method, pathname, headers);
  if (!hasBearer(request.headers)) return errorReply(401, NO_API_KEY, headers);
  if (method === "GET") return getReply(pathname, headers) ?? invalidUrl(method, pathname, headers);

  const parsed = parseJson(body);
  if (!parsed.ok) return invalidRequest(MALFORMED_JSON, headers);
  const json = asObject(parsed.value);
  if (json === undefined) return invalidRequest("Invalid type for body: expected an object.", headers);
  return postReply(request, json, seed, headers);
}

/** A local stand-in for provider B (OpenAI Chat Completions, Responses and Models APIs). */
export function startMockProviderB(opts?: MockProviderOptions): Promise<MockProvider> {
  return startMockServer(respond, opts);
}
