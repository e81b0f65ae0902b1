import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MockProvider, startMockProviderB } from "../src/index.ts";
import { B_HEADERS, frameData, frameEvents, rawRequest } from "./helpers.ts";

let mock: MockProvider;
let client: OpenAI;

beforeAll(async () => {
  mock = await startMockProviderB();
  client = new OpenAI({ apiKey: "sk-test", baseURL: `${mock.url}/v1`, maxRetries: 0 });
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

const chatParams = {
  model: "gpt-5.4-mini",
  messages: [{ role: "user" as const, content: "Is 97 prime?" }],
};
const responseParams = { model: "gpt-5.5", instructions: "Be brief.", input: "Is 97 prime?" };

describe("provider B: POST /v1/chat/completions", () => {
  it("returns a completion the SDK parses, echoing the model, with usage and headers", async () => {
    const { data, response, request_id } = await client.chat.completions.create(chatParams).withResponse();
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("openai-version")).toBe("2020-10-01");
    expect(response.headers.get("openai-processing-ms")).toMatch(/^\d+$/);
    expect(request_id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(data.id).toMatch(/^chatcmpl-/);
    expect(data.object).toBe("chat.completion");
    expect(data.model).toBe("gpt-5.4-mini");
    expect(data.choices[0]?.message.content?.length).toBeGreaterThan(0);
    expect(data.choices[0]?.finish_reason).toBe("stop");
    const usage = data.usage;
    expect(usage?.total_tokens).toBe((usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0));
    expect(usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(0);
    expect(usage?.prompt_tokens).toBeGreaterThan(usage?.prompt_tokens_details?.cached_tokens ?? 0);
  });

  it("reports reasoning tokens inside completion tokens when reasoning is requested", async () => {
    const data = await client.chat.completions.create({ ...chatParams, reasoning_effort: "low" });
    const reasoning = data.usage?.completion_tokens_details?.reasoning_tokens ?? 0;
    expect(reasoning).toBeGreaterThan(0);
    expect(data.usage?.completion_tokens).toBeGreaterThan(reasoning);
  });

  it("streams chunks with a trailing usage chunk when include_usage is set", async () => {
    const stream = await client.chat.completions.create({
      ...chatParams,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(last?.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThan(0);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content).length).toBeGreaterThanOrEqual(2);
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
  });

  it("accumulates into a final completion with the stream helper", async () => {
    const stream = client.chat.completions.stream({ ...chatParams, stream_options: { include_usage: true } });
    const final = await stream.finalChatCompletion();
    expect(final.model).toBe("gpt-5.4-mini");
    expect(final.choices[0]?.message.content?.length).toBeGreaterThan(0);
    expect(final.usage?.completion_tokens).toBeGreaterThan(0);
  });

  it("frames chunks as bare data lines ending in [DONE], with no usage unless asked", async () => {
    const res = await rawRequest(mock.url, "/v1/chat/completions", {
      headers: B_HEADERS,
      body: JSON.stringify({ ...chatParams, stream: true }),
    });
    expect(res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(res.headers["x-request-id"]).toMatch(/^req_/);
    expect(res.frames.at(-1)?.text).toBe("data: [DONE]");
    for (const frame of res.frames) expect(frame.text).toMatch(/^data: [^\n]+$/);
    expect(res.body.toString()).not.toContain("usage");
    const first = frameData(res.frames)[0] as Record<string, unknown>;
    expect(Object.keys(first)).toEqual([
      "id",
      "object",
      "created",
      "model",
      "service_tier",
      "system_fingerprint",
      "choices",
      "obfuscation",
    ]);
  });

  it("leaves out obfuscation when include_obfuscation is false", async () => {
    const res = await rawRequest(mock.url, "/v1/chat/completions", {
      headers: B_HEADERS,
      body: JSON.stringify({ ...chatParams, stream: true, stream_options: { include_obfuscation: false } }),
    });
    expect(res.body.toString()).not.toContain("obfuscation");
  });
});

describe("provider B: POST /v1/responses", () => {
  it("returns a response the SDK parses, without output_text on the wire", async () => {
    const { data, request_id } = await client.responses.create(responseParams).withResponse();
    expect(request_id).toMatch(/^req_/);
    expect(data.id).toMatch(/^resp_/);
    expect(data.object).toBe("response");
    expect(data.status).toBe("completed");
    expect(data.model).toBe("gpt-5.5");
    expect(data.instructions).toBe("Be brief.");
    expect(data.output_text.length).toBeGreaterThan(0);
    expect(data.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
    expect(data.usage?.total_tokens).toBe((data.usage?.input_tokens ?? 0) + (data.usage?.output_tokens ?? 0));
    const raw = await rawRequest(mock.url, "/v1/responses", {
      headers: B_HEADERS,
      body: JSON.stringify(responseParams),
    });
    // The SDK computes output_text itself; the wire body must not carry it.
    const { output_text, ...rest } = data;
    const wire = JSON.parse(raw.body.toString()) as Record<string, unknown>;
    expect(wire).not.toHaveProperty("output_text");
    expect(wire).toEqual(JSON.parse(JSON.stringify(rest)) as unknown);
    const message = data.output.find((item) => item.type === "message");
    const part = message?.content[0];
    expect(part?.type === "output_text" && part.text).toBe(output_text);
  });

  it("adds a reasoning item and reasoning tokens when reasoning is requested", async () => {
    const data = await client.responses.create({
      ...responseParams,
      reasoning: { effort: "low" },
      include: ["reasoning.encrypted_content"],
    });
    expect(data.output.map((item) => item.type)).toEqual(["reasoning", "message"]);
    expect(data.output[0]?.type === "reasoning" && data.output[0].encrypted_content).toMatch(/^gAAAAB/);
    expect(data.usage?.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
  });

  it("streams events the SDK accumulates, with usage on response.completed", async () => {
    const stream = client.responses.stream({ ...responseParams, reasoning: { effort: "low" } });
    const types: string[] = [];
    stream.on("event", (event) => types.push(event.type));
    const final = await stream.finalResponse();
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(types.filter((type) => type === "response.output_text.delta").length).toBeGreaterThanOrEqual(2);
    expect(final.status).toBe("completed");
    expect(final.output_text.length).toBeGreaterThan(0);
    expect(final.usage?.output_tokens).toBeGreaterThan(0);
  });

  it("numbers events from 0 and ends with [DONE] only when x-mock-responses-done is set", async () => {
    const body = JSON.stringify({ ...responseParams, stream: true });
    const plain = await rawRequest(mock.url, "/v1/responses", { headers: B_HEADERS, body });
    const withDone = await rawRequest(mock.url, "/v1/responses", {
      headers: { ...B_HEADERS, "x-mock-responses-done": "1" },
      body,
    });
    expect(plain.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    const events = frameData(plain.frames) as { type: string; sequence_number: number }[];
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(frameEvents(plain.frames)).toEqual(events.map((event) => event.type));
    expect(plain.frames.at(-1)?.text).toMatch(/^event: response.completed\n/);
    expect(withDone.frames.at(-1)?.text).toBe("data: [DONE]");
    expect(withDone.frames.slice(0, -1).map((frame) => frame.text)).toEqual(
      plain.frames.map((frame) => frame.text),
    );
    const doneStream = await client.responses.create(
      { ...responseParams, stream: true },
      { headers: { "x-mock-responses-done": "1" } },
    );
    const types: string[] = [];
    for await (const event of doneStream) types.push(event.type);
    expect(types.at(-1)).toBe("response.completed");
  });
});

describe("provider B: other endpoints", () => {
  it("compacts: user messages then one compaction item, with usage", async () => {
    const data = await client.responses.compact({
      model: "gpt-5.5",
      input: [
        { role: "user", content: "first turn" },
        { role: "assistant", content: "reply" },
        { role: "user", content: "second turn" },
      ],
    });
    expect(data.object).toBe("response.compaction");
    expect(data.output.map((item) => item.type)).toEqual(["message", "message", "compaction"]);
    expect(data.usage.input_tokens).toBeGreaterThan(0);
    expect(data.usage.output_tokens).toBeGreaterThan(0);
  });

  it("lists models", async () => {
    const page = await client.models.list();
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.data[0]).toMatchObject({ object: "model", owned_by: "system" });
    const one = await client.models.retrieve("gpt-5.5");
    expect(one.id).toBe("gpt-5.5");
  });

  it("counts input tokens", async () => {
    const count = await client.responses.inputTokens.count({ model: "gpt-5.5", input: "hello" });
    expect(count.input_tokens).toBeGreaterThan(0);
  });
});

describe("provider B: determinism", () => {
  it("answers identical requests with identical bytes and request ids", async () => {
    const cases = [
      ["/v1/chat/completions", chatParams],
      ["/v1/chat/completions", { ...chatParams, stream: true, stream_options: { include_usage: true } }],
      ["/v1/responses", responseParams],
      ["/v1/responses", { ...responseParams, stream: true }],
      ["/v1/responses/compact", { model: "gpt-5.5", input: "x" }],
    ] as const;
    for (const [path, params] of cases) {
      const body = JSON.stringify(params);
      const first = await rawRequest(mock.url, path, { headers: B_HEADERS, body });
      const second = await rawRequest(mock.url, path, { headers: B_HEADERS, body });
      expect(first.status).toBe(200);
      expect(second.body.equals(first.body)).toBe(true);
      expect(second.headers["x-request-id"]).toBe(first.headers["x-request-id"]);
    }
  });

  it("with freshIds, answers identical requests with ids of their own, as a provider does", async () => {
    const fresh = await startMockProviderB({ record: false, freshIds: true });
    try {
      const body = JSON.stringify(chatParams);
      const answers = [];
      for (let i = 0; i < 3; i++)
        answers.push(await rawRequest(fresh.url, "/v1/chat/completions", { headers: B_HEADERS, body }));
      const completions = answers.map(
        (a) => JSON.parse(a.body.toString("utf8")) as { id: string; object: string },
      );
      expect(completions.map((c) => c.object)).toEqual(Array(3).fill("chat.completion"));
      expect(new Set(completions.map((c) => c.id)).size).toBe(3);
      expect(new Set(answers.map((a) => a.headers["x-request-id"])).size).toBe(3);
    } finally {
      await fresh.close();
    }
  });
});

describe("provider B: errors", () => {
  it("rejects a missing bearer token with the documented 401 body", async () => {
    const res = await rawRequest(mock.url, "/v1/chat/completions", {
      headers: { "content-type": "application/json" },
      body: JSON.stringify(chatParams),
    });
    expect(res.status).toBe(401);
    const body = JSON.parse(res.body.toString()) as { error: Record<string, unknown> };
    expect(Object.keys(body)).toEqual(["error"]);
    expect(Object.keys(body.error)).toEqual(["message", "type", "param", "code"]);
    expect(body.error).toMatchObject({ type: "invalid_request_error", param: null, code: "invalid_api_key" });
  });

  it("surfaces the 401 to the SDK as AuthenticationError", async () => {
    const error = await client.chat.completions
      .create(chatParams, { headers: { authorization: "Basic nope" } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("invalid_api_key");
  });

  it("rejects malformed JSON with 400 invalid_request_error", async () => {
    for (const path of ["/v1/chat/completions", "/v1/responses", "/v1/responses/compact"]) {
      const res = await rawRequest(mock.url, path, { headers: B_HEADERS, body: "{not json" });
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body.toString())).toEqual({
        error: {
          message: expect.stringContaining("parse the JSON body"),
          type: "invalid_request_error",
          param: null,
          code: null,
        },
      });
    }
  });

  it("answers unknown paths with 404 Invalid URL", async () => {
    const res = await rawRequest(mock.url, "/v1/nothing", { headers: B_HEADERS, body: "{}" });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body.toString())).toMatchObject({
      error: { message: "Invalid URL (POST /v1/nothing)" },
    });
  });
});
