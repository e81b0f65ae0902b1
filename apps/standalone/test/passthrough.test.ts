import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.ts";

const upstreamKey = "sk-upstream-canary-7d1f0c";

const chatBody = {
  model: "gpt-5.4-mini",
  messages: [{ role: "user" as const, content: "Name one prime above 90." }],
};
const messagesBody = {
  model: "claude-sonnet-5",
  max_tokens: 256,
  messages: [{ role: "user" as const, content: "Name one prime above 90." }],
};

/** POSTs raw bytes and returns the raw response, so that bodies can be compared byte for byte. */
async function post(url: string, headers: Record<string, string>, body: string) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("bring-your-own-key passthrough", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.providerA.reset();
    h.providerB.reset();
  });

  const viaGatewayA = () => ({
    "x-api-key": h.apiKey,
    "x-gateway-upstream-key": upstreamKey,
    "anthropic-version": "2023-06-01",
  });
  const directA = () => ({ "x-api-key": upstreamKey, "anthropic-version": "2023-06-01" });
  const viaGatewayB = () => ({ authorization: `Bearer ${h.apiKey}`, "x-gateway-upstream-key": upstreamKey });
  const directB = () => ({ authorization: `Bearer ${upstreamKey}` });

  it.each([
    ["messages JSON", "a", "/v1/messages", messagesBody],
    ["messages SSE", "a", "/v1/messages", { ...messagesBody, stream: true }],
    ["messages ?beta=true", "a", "/v1/messages?beta=true", { ...messagesBody, stream: true }],
    [
      "count_tokens",
      "a",
      "/v1/messages/count_tokens",
      { model: "claude-sonnet-5", messages: messagesBody.messages },
    ],
    ["chat JSON", "b", "/v1/chat/completions", chatBody],
    ["chat SSE", "b", "/v1/chat/completions", { ...chatBody, stream: true }],
    [
      "chat SSE with usage",
      "b",
      "/v1/chat/completions",
      { ...chatBody, stream: true, stream_options: { include_usage: true } },
    ],
  ] as const)("%s: response bytes equal the provider's own", async (_name, provider, path, body) => {
    const text = JSON.stringify(body);
    const mock = provider === "a" ? h.providerA : h.providerB;
    const direct = await post(mock.url + path, provider === "a" ? directA() : directB(), text);
    const via = await post(h.gateway.url + path, provider === "a" ? viaGatewayA() : viaGatewayB(), text);
    expect(via.status).toBe(200);
    expect(via.bytes.equals(direct.bytes)).toBe(true);
    expect(via.headers.get("content-type")).toBe(direct.headers.get("content-type"));
    expect(via.headers.get("x-gateway-request-id")).toMatch(/^req_[0-9a-z]{26}$/);
    expect(via.headers.get("x-gateway-mode")).toBe("byo");
    expect(via.headers.get("x-gateway-route")).toBe("primary");
    expect(via.headers.get("x-gateway-effective-model")).toBe(body.model);

    // Upstream saw the caller's body byte for byte, the provider's own credential header, the
    // provider headers, the query string, and nothing of ours.
    const [direct_, forwarded] = mock.requests;
    expect(forwarded!.body.equals(Buffer.from(text))).toBe(true);
    expect(forwarded!.path).toBe(direct_!.path);
    if (provider === "a") {
      expect(forwarded!.headers["x-api-key"]).toBe(upstreamKey);
      expect(forwarded!.headers["anthropic-version"]).toBe("2023-06-01");
      expect(forwarded!.headers.authorization).toBeUndefined();
    } else {
      expect(forwarded!.headers.authorization).toBe(`Bearer ${upstreamKey}`);
      expect(forwarded!.headers["x-api-key"]).toBeUndefined();
    }
    const sent = JSON.stringify(forwarded!.headers);
    expect(sent).not.toContain(h.apiKey);
    expect(Object.keys(forwarded!.headers).filter((n) => n.startsWith("x-gateway-"))).toEqual([]);
  });

  it("passes provider headers such as anthropic-beta and openai-organization through", async () => {
    await post(
      `${h.gateway.url}/v1/messages`,
      { ...viaGatewayA(), "anthropic-beta": "prompt-caching-2024-07-31,context-1m-2025-08-07" },
      JSON.stringify(messagesBody),
    );
    await post(
      `${h.gateway.url}/v1/chat/completions`,
      { ...viaGatewayB(), "openai-organization": "org-abc", "openai-project": "proj_xyz" },
      JSON.stringify(chatBody),
    );
    expect(h.providerA.requests[0]!.headers["anthropic-beta"]).toBe(
      "prompt-caching-2024-07-31,context-1m-2025-08-07",
    );
    expect(h.providerB.requests[0]!.headers["openai-organization"]).toBe("org-abc");
    expect(h.providerB.requests[0]!.headers["openai-project"]).toBe("proj_xyz");
  });

  it("returns upstream error responses unmodified, with the gateway headers added", async () => {
    for (const [status, mock, path, headers, body] of [
      [529, h.providerA, "/v1/messages", viaGatewayA, messagesBody],
      [429, h.providerB, "/v1/chat/completions", viaGatewayB, chatBody],
    ] as const) {
      const direct = await post(
        mock.url + path,
        { ...(mock === h.providerA ? directA() : directB()), "x-mock-status": String(status) },
        JSON.stringify(body),
      );
      const via = await post(
        h.gateway.url + path,
        { ...headers(), "x-mock-status": String(status) },
        JSON.stringify(body),
      );
      expect(via.status).toBe(status);
      expect(via.bytes.equals(direct.bytes)).toBe(true);
      expect(via.headers.get("retry-after")).toBe(direct.headers.get("retry-after"));
      expect(via.headers.get("x-gateway-request-id")).toMatch(/^req_/);
    }
  });

  it("sends an event stream's headers at once, before a first frame that takes its time", async () => {
    const firstFrameDelayMs = 1_500;
    const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...viaGatewayB(),
        "x-mock-first-frame-delay-ms": String(firstFrameDelayMs),
      },
      body: JSON.stringify({ ...chatBody, stream: true }),
    });
    const headersAt = performance.now();
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gateway-request-id")).toMatch(/^req_/);
    const reader = res.body!.getReader();
    const first = await reader.read();
    // The mock held its first frame back for 1.5 s after its headers; the gateway did not.
    expect(performance.now() - headersAt).toBeGreaterThan(firstFrameDelayMs / 2);
    expect(Buffer.from(first.value!).toString()).toMatch(/^data: /);
    await reader.cancel();
  });

  describe("official SDKs", () => {
    it("openai: chat completions, JSON and streaming, parse and match the provider's bytes", async () => {
      const viaGateway = new OpenAI({
        apiKey: h.apiKey,
        baseURL: `${h.gateway.url}/v1`,
        defaultHeaders: { "x-gateway-upstream-key": upstreamKey },
      });
      const direct = new OpenAI({ apiKey: upstreamKey, baseURL: `${h.providerB.url}/v1` });

      const completion = await viaGateway.chat.completions.create(chatBody);
      expect(completion.object).toBe("chat.completion");
      expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
      const raw = await viaGateway.chat.completions.create(chatBody).asResponse();
      const rawDirect = await direct.chat.completions.create(chatBody).asResponse();
      expect(await raw.text()).toBe(await rawDirect.text());

      const stream = await viaGateway.chat.completions.create({
        ...chatBody,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      let usage: OpenAI.CompletionUsage | null | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? "";
        usage = chunk.usage ?? usage;
      }
      expect(text.length).toBeGreaterThan(0);
      expect(usage?.completion_tokens).toBeGreaterThan(0);
      const rawStream = await viaGateway.chat.completions.create({ ...chatBody, stream: true }).asResponse();
      const rawStreamDirect = await direct.chat.completions
        .create({ ...chatBody, stream: true })
        .asResponse();
      expect(await rawStream.text()).toBe(await rawStreamDirect.text());
    });

    it("anthropic: messages and count_tokens, JSON and streaming, parse and match the provider's bytes", async () => {
      const viaGateway = new Anthropic({
        apiKey: h.apiKey,
        baseURL: h.gateway.url,
        defaultHeaders: { "x-gateway-upstream-key": upstreamKey },
      });
      const direct = new Anthropic({ apiKey: upstreamKey, baseURL: h.providerA.url });

      const message = await viaGateway.messages.create(messagesBody);
      expect(message.type).toBe("message");
      expect(message.usage.output_tokens).toBeGreaterThan(0);
      const raw = await viaGateway.messages.create(messagesBody).asResponse();
      const rawDirect = await direct.messages.create(messagesBody).asResponse();
      expect(await raw.text()).toBe(await rawDirect.text());

      const stream = viaGateway.messages.stream(messagesBody);
      const final = await stream.finalMessage();
      expect(final.content[0]?.type).toBe("text");
      expect(final.usage.output_tokens).toBeGreaterThan(0);
      const rawStream = await viaGateway.messages.create({ ...messagesBody, stream: true }).asResponse();
      const rawStreamDirect = await direct.messages.create({ ...messagesBody, stream: true }).asResponse();
      expect(await rawStream.text()).toBe(await rawStreamDirect.text());

      const counted = await viaGateway.messages.countTokens({
        model: messagesBody.model,
        messages: messagesBody.messages,
      });
      expect(counted.input_tokens).toBeGreaterThan(0);
      const beta = await viaGateway.beta.messages.create({
        ...messagesBody,
        betas: ["context-1m-2025-08-07"],
      });
      expect(beta.type).toBe("message");
      expect(h.providerA.requests.at(-1)!.headers["anthropic-beta"]).toContain("context-1m-2025-08-07");
    });
  });
});
