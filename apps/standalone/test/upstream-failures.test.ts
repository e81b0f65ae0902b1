import { createServer } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eventually, type Harness, startHarness } from "./harness.ts";

const upstreamKey = "sk-upstream-failures";
const chatBody = JSON.stringify({
  model: "gpt-5.4-mini",
  stream: true,
  messages: [{ role: "user", content: "hi" }],
});
const messagesBody = JSON.stringify({
  model: "claude-sonnet-5",
  max_tokens: 64,
  stream: true,
  messages: [{ role: "user", content: "hi" }],
});

describe("upstream failures", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { GATEWAY_FIRST_BYTE_TIMEOUT_MS: "300", GATEWAY_IDLE_TIMEOUT_MS: "300" } });
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.providerA.reset();
    h.providerB.reset();
  });

  const headersB = (extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${h.apiKey}`,
    "x-gateway-upstream-key": upstreamKey,
    "content-type": "application/json",
    ...extra,
  });
  const headersA = (extra: Record<string, string> = {}) => ({
    "x-api-key": h.apiKey,
    "x-gateway-upstream-key": upstreamKey,
    "anthropic-version": "2023-06-01",
    "content-type": "application/json",
    ...extra,
  });
  const capture = (requestId: string) => h.capture(requestId);

  it("a reset mid-stream ends the stream with an error event in its own format, captured as truncated", async () => {
    const b = await request(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: headersB({ "x-mock-reset-after-frames": "2" }),
      body: chatBody,
    });
    expect(b.statusCode).toBe(200);
    const bText = await b.body.text();
    expect(bText.trimEnd().split("\n\n").at(-1)).toMatch(
      /^data: \{"error":\{"message":".+","type":"server_error"/,
    );
    expect(bText).not.toContain("[DONE]");
    const envelope = await capture(String(b.headers["x-gateway-request-id"]));
    expect(envelope.stream_outcome).toBe("truncated");
    expect(envelope.response_body).toBe(bText);

    const a = await request(`${h.gateway.url}/v1/messages`, {
      method: "POST",
      headers: headersA({ "x-mock-reset-after-frames": "2" }),
      body: messagesBody,
    });
    const aText = await a.body.text();
    expect(aText.trimEnd().split("\n\n").at(-1)).toMatch(
      /^event: error\ndata: \{"type":"error","error":\{"type":"api_error"/,
    );
  });

  it("a reset before any byte answers 502 in the provider format", async () => {
    const res = await request(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: headersB({ "x-mock-reset-after-frames": "0" }),
      body: chatBody,
    });
    expect(res.statusCode).toBe(502);
    expect(((await res.body.json()) as { error: { code: string } }).error.code).toBe("upstream_unavailable");
    const envelope = await capture(String(res.headers["x-gateway-request-id"]));
    expect(envelope.stream_outcome).toBe("upstream_error");
  });

  it("no first byte within the timeout answers 504; a silent stream ends with an error event", async () => {
    const slow = await request(`${h.gateway.url}/v1/messages`, {
      method: "POST",
      headers: headersA({ "x-mock-first-byte-delay-ms": "1500" }),
      body: messagesBody,
    });
    expect(slow.statusCode).toBe(504);
    expect(((await slow.body.json()) as { error: { type: string } }).error.type).toBe("timeout_error");

    const stalled = await request(`${h.gateway.url}/v1/messages`, {
      method: "POST",
      headers: headersA({ "x-mock-frame-delay-ms": "1500" }),
      body: messagesBody,
    });
    expect(stalled.statusCode).toBe(200);
    expect(await stalled.body.text()).toMatch(/event: error\ndata: .*stopped sending/);
  });

  it("a client that goes away aborts the upstream request", async () => {
    const controller = new AbortController();
    const res = await request(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: headersB({ "x-mock-frame-delay-ms": "100" }),
      body: chatBody,
      signal: controller.signal,
    });
    const iterator = res.body[Symbol.asyncIterator]();
    await iterator.next();
    controller.abort();
    await eventually(async () => (h.providerB.requests[0]?.aborted ? true : undefined));
    const envelope = await capture(String(res.headers["x-gateway-request-id"]));
    expect(envelope.stream_outcome).toBe("client_aborted");
  });
});

describe("an unreachable upstream", () => {
  let h: Harness;
  let closedPort: number;
  beforeAll(async () => {
    // A port that was just free: nothing listens there.
    closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    h = await startHarness({ env: { GATEWAY_PROVIDER_B_URL: `http://127.0.0.1:${closedPort}` } });
  });
  afterAll(() => h.close());

  it("answers 502 in provider B's format", async () => {
    const res = await request(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.apiKey}`, "x-gateway-upstream-key": upstreamKey },
      body: chatBody,
    });
    expect(res.statusCode).toBe(502);
    const body = (await res.body.json()) as { error: { type: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type: "server_error", code: "upstream_unavailable" });
    expect(res.headers["x-gateway-effective-model"]).toBe("gpt-5.4-mini");
  });
});

describe("callers that leave mid-stream", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it("never bring the gateway down, whenever they leave", async () => {
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const controller = new AbortController();
        try {
          const res = await request(`${h.gateway.url}/v1/chat/completions`, {
            method: "POST",
            headers: { authorization: `Bearer ${h.apiKey}`, "x-gateway-upstream-key": upstreamKey },
            body: chatBody,
            signal: controller.signal,
          });
          setTimeout(() => controller.abort(), i % 7);
          for await (const _chunk of res.body) {
            // read until aborted or done
          }
        } catch {
          // aborted by design
        }
      }),
    );
    const health = await request(`${h.gateway.url}/healthz`);
    expect(health.statusCode).toBe(200);
    await health.body.text();
  });
});
