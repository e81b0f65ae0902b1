import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockProvider, startMockProviderA } from "../src/index.ts";
import { A_HEADERS, frameData, frameEvents, rawRequest } from "./helpers.ts";

let mock: MockProvider;
let client: Anthropic;

beforeAll(async () => {
  mock = await startMockProviderA();
  client = new Anthropic({ apiKey: "sk-ant-test", baseURL: mock.url, maxRetries: 0 });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const params = {
  model: "claude-sonnet-5",
  max_tokens: 256,
  messages: [{ role: "user" as const, content: "Name one prime number above 90." }],
};

describe("provider A: POST /v1/messages", () => {
  it("listens on 127.0.0.1 without a trailing slash", () => {
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("returns a message the SDK parses, echoing the model, with cache usage", async () => {
    const { data, response, request_id } = await client.messages.create(params).withResponse();
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(request_id).toMatch(/^req_011C[0-9A-Za-z]{20}$/);
    expect(data.id).toMatch(/^msg_01[0-9A-Za-z]{22}$/);
    expect(data.type).toBe("message");
    expect(data.role).toBe("assistant");
    expect(data.model).toBe("claude-sonnet-5");
    expect(data.stop_reason).toBe("end_turn");
    const [block] = data.content;
    expect(block?.type).toBe("text");
    expect(block?.type === "text" && block.text.length).toBeGreaterThan(0);
    const usage = data.usage;
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens).toBeGreaterThan(0);
    expect(usage.cache_read_input_tokens).toBeGreaterThan(0);
    expect(usage.cache_creation?.ephemeral_5m_input_tokens).toBeGreaterThan(0);
    expect(usage.cache_creation?.ephemeral_1h_input_tokens).toBeGreaterThan(0);
    expect(usage.cache_creation_input_tokens).toBe(
      (usage.cache_creation?.ephemeral_5m_input_tokens ?? 0) +
        (usage.cache_creation?.ephemeral_1h_input_tokens ?? 0),
    );
  });

  it("keeps the documented key order", async () => {
    const res = await rawRequest(mock.url, "/v1/messages", {
      headers: A_HEADERS,
      body: JSON.stringify(params),
    });
    const body = JSON.parse(res.body.toString()) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual([
      "id",
      "type",
      "role",
      "model",
      "content",
      "stop_reason",
      "stop_sequence",
      "stop_details",
      "usage",
    ]);
    expect(Object.keys(body.usage as object)).toEqual([
      "input_tokens",
      "cache_creation_input_tokens",
      "cache_read_input_tokens",
      "cache_creation",
      "output_tokens",
      "service_tier",
      "inference_geo",
    ]);
  });

  it("streams the full event sequence, which the SDK accumulates with cumulative usage", async () => {
    const stream = client.messages.stream(params);
    const events: string[] = [];
    stream.on("streamEvent", (event) => events.push(event.type));
    const final = await stream.finalMessage();
    expect(events[0]).toBe("message_start");
    expect(events.at(-1)).toBe("message_stop");
    expect(events.filter((type) => type === "content_block_delta").length).toBeGreaterThanOrEqual(2);
    expect(final.model).toBe("claude-sonnet-5");
    expect(final.stop_reason).toBe("end_turn");
    expect(final.usage.output_tokens).toBeGreaterThan(1);
    expect(final.usage.cache_read_input_tokens).toBeGreaterThan(0);
    expect(final.usage.cache_creation_input_tokens).toBeGreaterThan(0);
  });

  it("frames the stream as event/data pairs separated by blank lines, with a literal ping", async () => {
    const res = await rawRequest(mock.url, "/v1/messages", {
      headers: A_HEADERS,
      body: JSON.stringify({ ...params, stream: true }),
    });
    expect(res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(res.headers["request-id"]).toMatch(/^req_011C/);
    expect(res.body.toString().endsWith("\n\n")).toBe(true);
    const names = frameEvents(res.frames);
    expect(names.slice(0, 3)).toEqual(["message_start", "content_block_start", "ping"]);
    expect(names.slice(-4)).toEqual([
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    expect(res.frames[2]?.text).toBe('event: ping\ndata: {"type": "ping"}');
    for (const frame of res.frames) expect(frame.text.split("\n")).toHaveLength(2);
    // Each frame's JSON type repeats its event name.
    const data = frameData(res.frames) as { type: string; usage?: Record<string, number> }[];
    expect(data.map((item) => item.type)).toEqual(names);
    const start = data[0] as unknown as { message: { usage: Record<string, number> } };
    const delta = data.find((item) => item.type === "message_delta");
    expect(start.message.usage.output_tokens).toBe(1);
    expect(delta?.usage?.cache_read_input_tokens).toBe(start.message.usage.cache_read_input_tokens);
    expect(delta?.usage?.input_tokens).toBe(start.message.usage.input_tokens);
  });

  it("routes on the path and ignores ?beta=true", async () => {
    // Claude Code posts to `/v1/messages?beta=true` (§1.1).
    const message = await client.messages.create(params, { query: { beta: "true" } });
    expect(message.model).toBe("claude-sonnet-5");
    expect(mock.requests[0]?.path).toBe("/v1/messages?beta=true");
  });
});

describe("provider A: POST /v1/messages/count_tokens", () => {
  it("returns {input_tokens}", async () => {
    const count = await client.messages.countTokens({ model: params.model, messages: params.messages });
    expect(count.input_tokens).toBeGreaterThan(0);
    const beta = await client.messages.countTokens(
      { model: params.model, messages: params.messages },
      { query: { beta: "true" } },
    );
    expect(beta.input_tokens).toBeGreaterThan(0);
    expect(mock.requests.map((request) => request.path)).toEqual([
      "/v1/messages/count_tokens",
      "/v1/messages/count_tokens?beta=true",
    ]);
  });
});

describe("provider A: determinism", () => {
  it("answers identical requests with identical bytes and request ids", async () => {
    for (const stream of [false, true]) {
      const body = JSON.stringify({ ...params, stream });
      const first = await rawRequest(mock.url, "/v1/messages", { headers: A_HEADERS, body });
      const second = await rawRequest(mock.url, "/v1/messages?beta=true", { headers: A_HEADERS, body });
      expect(first.body.length).toBeGreaterThan(0);
      expect(second.body.equals(first.body)).toBe(true);
      expect(second.headers["request-id"]).toBe(first.headers["request-id"]);
    }
  });

  it("answers different requests with different ids", async () => {
    const one = await client.messages.create(params);
    const other = await client.messages.create({ ...params, max_tokens: 257 });
    expect(other.id).not.toBe(one.id);
  });
});

describe("provider A: errors", () => {
  const body = JSON.stringify(params);

  it("rejects a request without credentials with 401 authentication_error", async () => {
    const { "x-api-key": _omitted, ...headers } = A_HEADERS;
    const res = await rawRequest(mock.url, "/v1/messages", { headers, body });
    expect(res.status).toBe(401);
    expect(res.headers["content-type"]).toBe("application/json");
    const error = JSON.parse(res.body.toString()) as Record<string, unknown>;
    expect(Object.keys(error)).toEqual(["type", "error", "request_id"]);
    expect(error).toEqual({
      type: "error",
      error: { type: "authentication_error", message: expect.any(String) },
      request_id: res.headers["request-id"],
    });
  });

  it("accepts either x-api-key or a bearer token, as the API does", async () => {
    // SDK 1.x sends its apiKey as `Authorization: Bearer`; an x-api-key header works as well.
    const viaHeader = new Anthropic({
      apiKey: null,
      defaultHeaders: { "x-api-key": "sk-ant-test", authorization: null },
      baseURL: mock.url,
      maxRetries: 0,
    });
    await expect(viaHeader.messages.create(params)).resolves.toMatchObject({ type: "message" });
    await expect(client.messages.create(params)).resolves.toMatchObject({ type: "message" });
    expect(mock.requests[0]?.headers["x-api-key"]).toBe("sk-ant-test");
    expect(mock.requests[0]?.headers.authorization).toBeUndefined();
    expect(mock.requests[1]?.headers.authorization).toBe("Bearer sk-ant-test");
  });

  it("surfaces a missing credential to the SDK as AuthenticationError", async () => {
    const anonymous = new Anthropic({
      apiKey: null,
      defaultHeaders: { authorization: null },
      baseURL: mock.url,
      maxRetries: 0,
    });
    const error = await anonymous.messages.create(params).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe("authentication_error");
  });

  it("rejects a missing anthropic-version with 400 invalid_request_error", async () => {
    const { "anthropic-version": _omitted, ...headers } = A_HEADERS;
    const res = await rawRequest(mock.url, "/v1/messages", { headers, body });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body.toString())).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error" },
      request_id: expect.stringMatching(/^req_/),
    });
  });

  it("rejects malformed JSON with 400 invalid_request_error", async () => {
    const res = await rawRequest(mock.url, "/v1/messages", { headers: A_HEADERS, body: '{"model":' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body.toString())).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.any(String) },
    });
  });

  it("rejects a body without max_tokens like the API does", async () => {
    const res = await rawRequest(mock.url, "/v1/messages", {
      headers: A_HEADERS,
      body: JSON.stringify({ model: params.model, messages: params.messages }),
    });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body.toString())).toMatchObject({
      error: { type: "invalid_request_error", message: "max_tokens: Field required" },
    });
  });

  it("answers unknown paths with 404 not_found_error", async () => {
    const res = await rawRequest(mock.url, "/v1/nothing", { headers: A_HEADERS, body });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body.toString())).toMatchObject({ error: { type: "not_found_error" } });
  });
});
