import Anthropic from "@anthropic-ai/sdk";
import { callRows } from "@gateway/db/testing";
import { type MockProvider, startMockProviderB } from "@gateway/testkit";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deployment, eventually, type Harness, type Json, putCatalogModel, startHarness } from "./harness.ts";

const managedKeyA = "sk-operator-a-3f9e";
const managedKeyB = "sk-operator-b-77c1";
const credentials = {
  GATEWAY_UPSTREAM_KEY_CATALOG_A: managedKeyA,
  GATEWAY_UPSTREAM_KEY_CATALOG_B: managedKeyB,
};

describe("managed catalog calls", () => {
  let h: Harness;
  let catalogB: MockProvider;
  beforeAll(async () => {
    h = await startHarness({ credentials });
    // The catalog's provider-B deployment is its own upstream, so that a frontier call would show.
    catalogB = await startMockProviderB();
    await putCatalogModel(h, "swift-chat", {
      display_name: "Swift Chat",
      deployments: [
        deployment("chat_completions", catalogB.url, "gpt-5.4-nano", "GATEWAY_UPSTREAM_KEY_CATALOG_B"),
        deployment("messages", h.providerA.url, "claude-haiku-4-5", "GATEWAY_UPSTREAM_KEY_CATALOG_A"),
      ],
    });
    await putCatalogModel(h, "retired-model", {
      display_name: "Retired",
      active: false,
      deployments: [
        deployment("chat_completions", catalogB.url, "gpt-5-mini", "GATEWAY_UPSTREAM_KEY_CATALOG_B"),
      ],
    });
    await putCatalogModel(h, "chat-only", {
      display_name: "Chat only",
      deployments: [
        deployment("chat_completions", catalogB.url, "gpt-5-mini", "GATEWAY_UPSTREAM_KEY_CATALOG_B"),
      ],
    });
    await putCatalogModel(h, "no-credentials", {
      display_name: "No credentials",
      deployments: [deployment("chat_completions", catalogB.url, "gpt-5-mini", "GATEWAY_UPSTREAM_KEY_UNSET")],
    });
    await putCatalogModel(h, "unreachable", {
      display_name: "Unreachable",
      deployments: [
        deployment("chat_completions", "http://127.0.0.1:9", "gpt-5-mini", "GATEWAY_UPSTREAM_KEY_CATALOG_B"),
      ],
    });
  });
  afterAll(async () => {
    await h.close();
    await catalogB.close();
  });
  beforeEach(() => {
    h.providerA.reset();
    h.providerB.reset();
    catalogB.reset();
  });

  const openai = () => new OpenAI({ apiKey: h.apiKey, baseURL: `${h.gateway.url}/v1`, maxRetries: 0 });
  const frontierUntouched = () => expect(h.providerB.requests).toHaveLength(0);

  it("lists the active catalog ids in the model-list shape", async () => {
    const res = await fetch(`${h.gateway.url}/v1/models`, {
      headers: { authorization: `Bearer ${h.apiKey}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gateway-request-id")).toMatch(/^req_/);
    const body = (await res.json()) as Json;
    expect(body.object).toBe("list");
    const ids = body.data.map((m: { id: string }) => m.id);
    expect(ids).toEqual(expect.arrayContaining(["swift-chat", "chat-only"]));
    expect(ids).not.toContain("retired-model");
    expect(body.data.find((m: { id: string }) => m.id === "swift-chat")).toEqual({
      id: "swift-chat",
      object: "model",
      created: expect.any(Number),
      owned_by: "gateway",
      display_name: "Swift Chat",
    });
    const listed = await openai().models.list();
    expect(listed.data.map((m) => m.id)).toEqual(ids);
    expect((await fetch(`${h.gateway.url}/v1/models`)).status).toBe(401);
  });

  it("serves chat completions with the operator's key and the deployment's model, JSON and streaming", async () => {
    const raw = await openai()
      .chat.completions.create({ model: "swift-chat", messages: [{ role: "user", content: "hi" }] })
      .withResponse();
    expect(raw.data.object).toBe("chat.completion");
    expect(raw.response.headers.get("x-gateway-mode")).toBe("managed");
    expect(raw.response.headers.get("x-gateway-route")).toBe("primary");
    expect(raw.response.headers.get("x-gateway-effective-model")).toBe("swift-chat");
    const upstream = catalogB.requests[0]!;
    expect(JSON.parse(upstream.body.toString()).model).toBe("gpt-5.4-nano");
    expect(upstream.headers.authorization).toBe(`Bearer ${managedKeyB}`);
    expect(JSON.stringify(upstream.headers)).not.toContain(h.apiKey);

    // A stream without include_usage: the gateway asks for usage upstream and hides the chunk.
    const stream = await openai().chat.completions.create({
      model: "swift-chat",
      stream: true,
      messages: [{ role: "user", content: "stream please" }],
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.choices.length > 0 && !c.usage)).toBe(true);
    expect(JSON.parse(catalogB.requests[1]!.body.toString()).stream_options).toEqual({ include_usage: true });
    frontierUntouched();

    // The hidden usage still reaches the call record.
    const requestId = raw.response.headers.get("x-gateway-request-id")!;
    const row = await eventually(
      async () => (await callRows(h.gateway.internals.db, { requestIds: [requestId] }))[0],
    );
    expect(row).toMatchObject({
      mode: "managed",
      route: "primary",
      providerLabel: "provider_b",
      servedModel: "swift-chat",
    });
    expect(row.outputTokens).toBeGreaterThan(0);
  });

  it("keeps the usage chunk for a caller who asked for it, and its capture holds what the caller got", async () => {
    const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "swift-chat",
        stream: true,
        stream_options: { include_usage: true },
        messages: [],
      }),
    });
    const text = await res.text();
    expect(text).toContain('"choices":[]');
    const hidden = await fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "swift-chat", stream: true, messages: [] }),
    });
    const hiddenText = await hidden.text();
    expect(hiddenText).not.toContain('"choices":[]');
    expect(hiddenText.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const requestId = hidden.headers.get("x-gateway-request-id")!;
    const envelope = await h.capture(requestId);
    expect(envelope.response_body).toBe(hiddenText);
    expect(envelope).toMatchObject({
      mode: "managed",
      requested_model: "swift-chat",
      served_model: "swift-chat",
    });
  });

  it("serves messages through the Anthropic SDK, JSON and streaming", async () => {
    const anthropic = new Anthropic({ apiKey: h.apiKey, baseURL: h.gateway.url, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: "swift-chat",
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(message.type).toBe("message");
    const final = await anthropic.messages
      .stream({ model: "swift-chat", max_tokens: 64, messages: [{ role: "user", content: "hi" }] })
      .finalMessage();
    expect(final.usage.output_tokens).toBeGreaterThan(0);
    const [first] = h.providerA.requests;
    expect(first!.headers["x-api-key"]).toBe(managedKeyA);
    expect(first!.headers.authorization).toBeUndefined();
    expect(JSON.parse(first!.body.toString()).model).toBe("claude-haiku-4-5");
  });

  it.each([
    ["an unknown id", "no-such-model", 404, "model_not_found"],
    ["an inactive model", "retired-model", 503, "model_unavailable"],
    ["a model without credentials", "no-credentials", 503, "model_unavailable"],
    ["a deployment that is down", "unreachable", 503, "model_unavailable"],
  ])("%s: an error, and no request to a frontier provider", async (_name, model, status, code) => {
    const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(status);
    expect(((await res.json()) as Json).error.code).toBe(code);
    expect(res.headers.get("x-gateway-mode")).toBe("managed");
    frontierUntouched();
    expect(h.providerA.requests).toHaveLength(0);
  });

  it("a model not offered in the endpoint's format: 503 in that format", async () => {
    const res = await fetch(`${h.gateway.url}/v1/messages`, {
      method: "POST",
      headers: {
        "x-api-key": h.apiKey,
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
      },
      body: JSON.stringify({ model: "chat-only", max_tokens: 8, messages: [] }),
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as Json).error.type).toBe("overloaded_error");
    expect(h.providerA.requests).toHaveLength(0);
  });
});
