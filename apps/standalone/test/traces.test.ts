import { callRows } from "@gateway/db/testing";
import { type MockProvider, startMockProviderB } from "@gateway/testkit";
import { memoryTracer, type ReadableSpan } from "@gateway/tracing/testing";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_SYSTEM,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
} from "@opentelemetry/semantic-conventions/incubating";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deployment,
  eventually,
  type Harness,
  type Json,
  putCatalogModel,
  startHarness,
  untilCosted,
} from "./harness.ts";
import { callerTrace, tracedChat } from "./support/caller-trace.ts";

const upstreamKey = "sk-caller-traces-51f0";
const prompt = "a prompt that must never be a span attribute";

const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const traceOf = (span: ReadableSpan) => span.spanContext().traceId;

describe("traces", () => {
  const { tracer, spans } = memoryTracer("standalone");
  let h: Harness;
  let canary: MockProvider;
  beforeAll(async () => {
    h = await startHarness({ tracer, credentials: { GATEWAY_UPSTREAM_KEY_CANARY: "sk-operator-canary" } });
    canary = await startMockProviderB({ forcedFaults: { status: 500 } });
  });
  afterAll(async () => {
    await h.close();
    await canary.close();
  });

  /** Every span of one call, once its event is stored (one consumer does it in this process). */
  async function spansOfCall(requestId: string) {
    await untilCosted(h.gateway, [requestId]);
    return eventually(async () => {
      const server = spans().find(
        (s) => s.kind === SpanKind.SERVER && s.attributes["gateway.request_id"] === requestId,
      );
      if (!server) return undefined;
      const inTrace = spans().filter((s) => traceOf(s) === traceOf(server));
      const consumers = inTrace.filter(
        (s) => s.kind === SpanKind.CONSUMER && s.attributes["gateway.request_id"] === requestId,
      );
      if (consumers.length < 1) return undefined;
      return {
        server,
        clients: inTrace.filter(
          (s) => s.kind === SpanKind.CLIENT && s.parentSpanContext?.spanId === idOf(server),
        ),
        consumers,
        stored: consumers.find((s) => s.name === "costing-worker store"),
      };
    });
  }

  it("follows a call from the caller's traceparent through the gateway and the upstream to its consumer", async () => {
    const caller = callerTrace();
    const res = await tracedChat(
      h.gateway.url,
      h.apiKey,
      caller,
      { "x-gateway-upstream-key": upstreamKey },
      prompt,
    );
    expect(res.status).toBe(200);
    const answer: Json = await res.json();
    const requestId = res.headers.get("x-gateway-request-id")!;
    const { server, clients, consumers, stored } = await spansOfCall(requestId);

    // the gateway's span: a child of the caller's, named and described by the GenAI conventions
    expect(traceOf(server)).toBe(caller.traceId);
    expect(server.parentSpanContext?.spanId).toBe(caller.spanId);
    expect(server.name).toBe("chat gpt-5.4-mini");
    expect(server.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(server.attributes).toMatchObject({
      [ATTR_GEN_AI_OPERATION_NAME]: "chat",
      [ATTR_GEN_AI_PROVIDER_NAME]: "provider_b",
      [ATTR_GEN_AI_SYSTEM]: "provider_b",
      [ATTR_GEN_AI_REQUEST_MODEL]: "gpt-5.4-mini",
      [ATTR_GEN_AI_RESPONSE_MODEL]: res.headers.get("x-gateway-effective-model"),
      // provider B's prompt tokens count cached ones too, as the conventions' input tokens do
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: answer.usage.prompt_tokens,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: answer.usage.completion_tokens,
      [ATTR_HTTP_RESPONSE_STATUS_CODE]: 200,
      "gateway.request_id": requestId,
      "gateway.mode": "byo",
      "gateway.route": "primary",
      "gateway.stream_outcome": "complete",
    });
    expect(server.attributes[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]).toBeGreaterThan(0);

    // the upstream request: its one child
    expect(clients).toHaveLength(1);
    expect(clients[0]!.name).toBe("chat gpt-5.4-mini");
    expect(clients[0]!.attributes).toMatchObject({
      [ATTR_GEN_AI_REQUEST_MODEL]: "gpt-5.4-mini",
      [ATTR_HTTP_RESPONSE_STATUS_CODE]: 200,
      "server.address": new URL(h.providerB.url).hostname,
      "server.port": Number(new URL(h.providerB.url).port),
    });

    // the one consumer that stores the call and its capture joined the call's trace, under its span
    expect(consumers).toHaveLength(1);
    expect(traceOf(stored!)).toBe(caller.traceId);
    expect(stored!.parentSpanContext?.spanId).toBe(idOf(server));

    // no key, body or prompt is ever an attribute
    const everything = JSON.stringify(spans().map((s) => s.attributes));
    for (const secret of [prompt, upstreamKey, h.apiKey]) expect(everything).not.toContain(secret);
  });

  it("starts a trace of its own for a caller without one, with the usage read from a stream", async () => {
    const res = await fetch(`${h.gateway.url}/v1/messages`, {
      method: "POST",
      headers: {
        "x-api-key": h.apiKey,
        "x-gateway-upstream-key": upstreamKey,
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
      },
      body: JSON.stringify({
        model: "claude-x",
        max_tokens: 64,
        stream: true,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const requestId = res.headers.get("x-gateway-request-id")!;
    const { server, clients, stored } = await spansOfCall(requestId);
    const [row] = await callRows(h.gateway.internals.db, { requestIds: [requestId] });

    expect(server.parentSpanContext).toBeUndefined();
    expect(server.name).toBe("chat claude-x");
    expect(server.attributes).toMatchObject({
      [ATTR_GEN_AI_PROVIDER_NAME]: "provider_a",
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]:
        row!.inputTokens! + row!.cacheReadInputTokens! + row!.cacheCreationInputTokens!,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: row!.outputTokens,
      "gateway.stream": true,
      "gateway.stream_outcome": "complete",
    });
    expect(row!.outputTokens).toBeGreaterThan(0);
    expect(clients).toHaveLength(1);
    expect(stored!.parentSpanContext?.spanId).toBe(idOf(server));
  });

  it("shows a fallback as a second upstream request, the failed first one in error", async () => {
    await putCatalogModel(h, "canary", {
      display_name: "Canary",
      deployments: [
        deployment("chat_completions", canary.url, "gpt-5.4-nano", "GATEWAY_UPSTREAM_KEY_CANARY"),
      ],
    });
    const workload = await h.cp("POST", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`, {
      name: "traced-canary",
    });
    const route = await h.cp(
      "PUT",
      `/admin/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads/${workload.json.id}/route`,
      { model_id: "canary", route_traffic_pct: 100 },
    );
    expect(route.status).toBe(200);
    const caller = callerTrace();
    const res = await tracedChat(h.gateway.url, h.apiKey, caller, {
      "x-gateway-upstream-key": upstreamKey,
      "x-gateway-workload": "traced-canary",
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gateway-route")).toBe("fallback");
    await res.text();
    const { server, clients } = await spansOfCall(res.headers.get("x-gateway-request-id")!);

    expect(server.parentSpanContext?.spanId).toBe(caller.spanId);
    expect(server.attributes).toMatchObject({
      "gateway.route": "fallback",
      "gateway.fallback_reason": "error",
    });
    expect(server.status.code).not.toBe(SpanStatusCode.ERROR);
    const [routed, fallback] = [...clients].sort(
      (a, b) => a.startTime[1] - b.startTime[1] + (a.startTime[0] - b.startTime[0]) * 1e9,
    );
    expect(routed!.name).toBe("chat canary");
    expect(routed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(routed!.attributes).toMatchObject({ "gateway.route": "gateway", "gateway.mode": "managed" });
    expect(fallback!.name).toBe("chat gpt-5.4-mini");
    expect(fallback!.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(fallback!.attributes).toMatchObject({
      "gateway.route": "fallback",
      [ATTR_HTTP_RESPONSE_STATUS_CODE]: 200,
    });
  });
});
