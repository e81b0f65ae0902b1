import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type MockProvider, startMockProviders } from "../src/index.ts";
import { A_HEADERS, B_HEADERS, frameData, frameEvents, rawRequest } from "./helpers.ts";

let providerA: MockProvider;
let providerB: MockProvider;
let closeAll: () => Promise<void>;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  const mocks = await startMockProviders();
  ({ providerA, providerB } = mocks);
  closeAll = mocks.close;
  anthropic = new Anthropic({ apiKey: "sk-ant-test", baseURL: providerA.url, maxRetries: 0 });
  openai = new OpenAI({ apiKey: "sk-test", baseURL: `${providerB.url}/v1`, maxRetries: 0 });
});
afterAll(() => closeAll());
beforeEach(() => {
  providerA.reset();
  providerB.reset();
});

const aParams = {
  model: "claude-haiku-4-5",
  max_tokens: 64,
  messages: [{ role: "user" as const, content: "hi" }],
};
const aStreamBody = JSON.stringify({ ...aParams, stream: true });
const chatParams = { model: "gpt-5.4-mini", messages: [{ role: "user" as const, content: "hi" }] };
const responseParams = { model: "gpt-5.5", input: "hi" };

describe("x-mock-status", () => {
  const aTypes: [number, string][] = [
    [400, "invalid_request_error"],
    [401, "authentication_error"],
    [403, "permission_error"],
    [404, "not_found_error"],
    [413, "request_too_large"],
    [429, "rate_limit_error"],
    [500, "api_error"],
    [529, "overloaded_error"],
  ];
  it.each(aTypes)("provider A answers %i with %s", async (status, type) => {
    const error = await anthropic.messages
      .create(aParams, { headers: { "x-mock-status": String(status) } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBe(status);
    expect(apiError.type).toBe(type);
    expect(apiError.requestID).toMatch(/^req_/);
    expect(apiError.error).toEqual({
      type: "error",
      error: { type, message: expect.any(String) },
      request_id: apiError.requestID,
    });
    expect(apiError.headers?.get("retry-after") ?? undefined).toBe(
      status === 429 || status === 529 ? "1" : undefined,
    );
  });

  const bErrors: [number, string, string | null][] = [
    [400, "invalid_request_error", null],
    [401, "invalid_request_error", "invalid_api_key"],
    [403, "request_forbidden", "unsupported_country_region_territory"],
    [404, "invalid_request_error", "model_not_found"],
    [429, "tokens", "rate_limit_exceeded"],
    [500, "server_error", null],
    [503, "service_unavailable_error", "server_is_overloaded"],
  ];
  it.each(bErrors)("provider B answers %i with type %s, code %s", async (status, type, code) => {
    for (const call of [
      () => openai.chat.completions.create(chatParams, { headers: { "x-mock-status": String(status) } }),
      () => openai.responses.create(responseParams, { headers: { "x-mock-status": String(status) } }),
    ]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(OpenAI.APIError);
      const apiError = error as InstanceType<typeof OpenAI.APIError>;
      expect(apiError.status).toBe(status);
      expect(apiError.type).toBe(type);
      expect(apiError.code).toBe(code);
      expect(apiError.requestID).toMatch(/^req_/);
      expect(apiError.error).toEqual({ message: expect.any(String), type, param: null, code });
      expect(apiError.headers?.get("retry-after") ?? undefined).toBe(
        status === 429 || status === 503 ? "1" : undefined,
      );
    }
  });

  it("applies to streaming requests too, before any event", async () => {
    const res = await rawRequest(providerA.url, "/v1/messages", {
      headers: { ...A_HEADERS, "x-mock-status": "529" },
      body: aStreamBody,
    });
    expect(res.status).toBe(529);
    expect(res.headers["content-type"]).toBe("application/json");
    expect(providerA.requests[0]?.aborted).toBe(false);
  });
});

describe("x-mock-first-byte-delay-ms", () => {
  it("holds back the status line", async () => {
    const res = await rawRequest(providerB.url, "/v1/chat/completions", {
      headers: { ...B_HEADERS, "x-mock-first-byte-delay-ms": "150" },
      body: JSON.stringify(chatParams),
    });
    expect(res.status).toBe(200);
    expect(res.headersAfterMs).toBeGreaterThanOrEqual(140);
  });

  it("lets an SDK timeout fire", async () => {
    const error = await anthropic.messages
      .create(aParams, { headers: { "x-mock-first-byte-delay-ms": "2000" }, timeout: 100 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    await vi.waitFor(() => expect(providerA.requests[0]?.aborted).toBe(true));
  });
});

describe("x-mock-frame-delay-ms", () => {
  it("spaces every SSE frame, each sent separately", async () => {
    const res = await rawRequest(providerA.url, "/v1/messages", {
      headers: { ...A_HEADERS, "x-mock-frame-delay-ms": "40" },
      body: aStreamBody,
    });
    expect(res.complete).toBe(true);
    expect(res.frames.length).toBeGreaterThanOrEqual(8);
    const gaps = res.frames.slice(1).map((frame, index) => frame.atMs - (res.frames[index]?.atMs ?? 0));
    // Loose per-gap bound: a late frame on a busy machine shortens the gap after it.
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(20);
    expect(gaps.reduce((sum, gap) => sum + gap, 0)).toBeGreaterThanOrEqual(gaps.length * 40 - 5);
  });
});

describe("x-mock-reset-after-frames", () => {
  it("cuts a stream after N frames", async () => {
    const res = await rawRequest(providerB.url, "/v1/responses", {
      headers: { ...B_HEADERS, "x-mock-reset-after-frames": "3" },
      body: JSON.stringify({ ...responseParams, stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.complete).toBe(false);
    expect(res.error).toBeDefined();
    expect(frameEvents(res.frames)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
    ]);
    // The mock hung up itself: that is not a client abort.
    expect(providerB.requests[0]?.aborted).toBe(false);
  });

  it("makes the SDK stream fail", async () => {
    const stream = anthropic.messages.stream(aParams, { headers: { "x-mock-reset-after-frames": "4" } });
    await expect(stream.finalMessage()).rejects.toThrow();
  });

  it("with 0, closes the connection before any byte, for JSON too", async () => {
    for (const body of [JSON.stringify(aParams), aStreamBody]) {
      const res = await rawRequest(providerA.url, "/v1/messages", {
        headers: { ...A_HEADERS, "x-mock-reset-after-frames": "0" },
        body,
      });
      expect(res.status).toBeUndefined();
      expect(res.body.length).toBe(0);
      expect(res.error).toBeDefined();
    }
    const error = await openai.chat.completions
      .create(chatParams, { headers: { "x-mock-reset-after-frames": "0" } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
  });
});

describe("x-mock-midstream-error", () => {
  const headers = { "x-mock-midstream-error": "1" };

  it("provider A: sends event: error after the first delta, which the SDK throws", async () => {
    const res = await rawRequest(providerA.url, "/v1/messages", {
      headers: { ...A_HEADERS, ...headers },
      body: aStreamBody,
    });
    expect(res.complete).toBe(true);
    expect(frameEvents(res.frames)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "error",
    ]);
    expect(res.frames.at(-1)?.text).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    );
    const stream = await anthropic.messages.create({ ...aParams, stream: true }, { headers });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of stream) seen.push(event.type);
    })().catch((caught: unknown) => caught);
    expect(seen).toContain("content_block_delta");
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe("overloaded_error");
  });

  it("provider B chat: sends a data: {error} chunk after the first content chunk", async () => {
    const res = await rawRequest(providerB.url, "/v1/chat/completions", {
      headers: { ...B_HEADERS, ...headers },
      body: JSON.stringify({ ...chatParams, stream: true }),
    });
    const data = frameData(res.frames) as Record<string, unknown>[];
    expect(data).toHaveLength(3);
    expect(data.at(-1)).toEqual({
      error: { message: expect.any(String), type: "server_error", param: null, code: null },
    });
    expect(res.body.toString()).not.toContain("[DONE]");
    const stream = await openai.chat.completions.create({ ...chatParams, stream: true }, { headers });
    const error = await (async () => {
      for await (const _chunk of stream) {
        // drain
      }
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).type).toBe("server_error");
  });

  it("provider B responses: sends the nested error event, then response.failed", async () => {
    const res = await rawRequest(providerB.url, "/v1/responses", {
      headers: { ...B_HEADERS, ...headers, "x-mock-responses-done": "1" },
      body: JSON.stringify({ ...responseParams, stream: true }),
    });
    const names = frameEvents(res.frames);
    expect(names.slice(-3)).toEqual(["error", "response.failed", undefined]);
    expect(res.frames.at(-1)?.text).toBe("data: [DONE]");
    const data = frameData(res.frames) as { type: string; sequence_number: number }[];
    expect(data.at(-2)).toEqual({
      type: "error",
      sequence_number: data.length - 2,
      error: { type: "server_error", code: "server_error", message: expect.any(String), param: null },
    });
    expect(data.at(-1)).toMatchObject({
      type: "response.failed",
      sequence_number: data.length - 1,
      response: { status: "failed", error: { code: "server_error" } },
    });
    expect(names.filter((name) => name === "response.output_text.delta")).toHaveLength(1);
    const stream = await openai.responses.create({ ...responseParams, stream: true }, { headers });
    const error = await (async () => {
      for await (const _event of stream) {
        // drain
      }
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
  });
});
