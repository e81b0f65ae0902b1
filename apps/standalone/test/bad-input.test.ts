import { Readable } from "node:stream";
import { request } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.ts";

const upstreamKey = "sk-upstream-bad-input";

/**
 * Every refusal answers in the endpoint's provider error format, carries the gateway headers,
 * and sends nothing upstream.
 */
describe("bad input", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { GATEWAY_MAX_BODY_BYTES: "4096" } });
  });
  afterAll(() => h.close());
  beforeEach(() => {
    h.providerA.reset();
    h.providerB.reset();
  });
  const nothingForwarded = () => {
    expect(h.providerA.requests).toHaveLength(0);
    expect(h.providerB.requests).toHaveLength(0);
  };

  const chat = (
    headers: Record<string, string>,
    body: string | Buffer = '{"model":"gpt-5.4-mini","messages":[]}',
  ) =>
    request(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    });
  const messages = (
    headers: Record<string, string>,
    body = '{"model":"claude-sonnet-5","max_tokens":1,"messages":[]}',
  ) =>
    request(`${h.gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
      body,
    });

  /**
   * `gateway`: the `x-gateway-*` headers expected beside the request id and route: whose
   * credential (`byo` with an upstream key), and the model that ran (none before the body is read).
   */
  async function expectProviderBError(
    res: Awaited<ReturnType<typeof chat>>,
    status: number,
    code: string | null,
    gateway: { mode: "byo" | "managed"; effectiveModel: string } = { mode: "byo", effectiveModel: "" },
  ) {
    expect(res.statusCode).toBe(status);
    const body = (await res.body.json()) as {
      error: { message: string; type: string; param: unknown; code: unknown };
    };
    expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
    expect(body.error.code).toBe(code);
    expect(body.error.message.length).toBeGreaterThan(10);
    expect(res.headers["x-gateway-request-id"]).toMatch(/^req_/);
    expect(res.headers["x-gateway-route"]).toBe("primary");
    expect(res.headers["x-gateway-mode"]).toBe(gateway.mode);
    expect(res.headers["x-gateway-effective-model"]).toBe(gateway.effectiveModel);
  }

  async function expectProviderAError(
    res: Awaited<ReturnType<typeof messages>>,
    status: number,
    type: string,
  ) {
    expect(res.statusCode).toBe(status);
    const body = (await res.body.json()) as {
      type: string;
      error: { type: string; message: string };
      request_id: string;
    };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe(type);
    expect(body.request_id).toBe(res.headers["x-gateway-request-id"]);
  }

  it("missing or unknown key: 401 in each provider's format", async () => {
    await expectProviderBError(await chat({ "x-gateway-upstream-key": upstreamKey }), 401, "invalid_api_key");
    await expectProviderBError(
      await chat({ authorization: "Bearer sk_not_a_real_key", "x-gateway-upstream-key": upstreamKey }),
      401,
      "invalid_api_key",
    );
    await expectProviderBError(await chat({ authorization: `Basic ${h.apiKey}` }), 401, "invalid_api_key", {
      mode: "managed",
      effectiveModel: "",
    });
    await expectProviderAError(
      await messages({ "x-gateway-upstream-key": upstreamKey }),
      401,
      "authentication_error",
    );
    await expectProviderAError(
      await messages({ "x-api-key": "sk_wrong", "x-gateway-upstream-key": upstreamKey }),
      401,
      "authentication_error",
    );
    nothingForwarded();
  });

  it("malformed JSON or a non-object body: 400", async () => {
    const auth = { authorization: `Bearer ${h.apiKey}`, "x-gateway-upstream-key": upstreamKey };
    await expectProviderBError(await chat(auth, '{"model": "gpt'), 400, null);
    await expectProviderBError(await chat(auth, "[1,2]"), 400, null);
    await expectProviderBError(await chat(auth, ""), 400, null);
    await expectProviderAError(
      await messages({ "x-api-key": h.apiKey, "x-gateway-upstream-key": upstreamKey }, "{nope"),
      400,
      "invalid_request_error",
    );
    nothingForwarded();
  });

  it("unknown project or workload: 404 naming it", async () => {
    const auth = { authorization: `Bearer ${h.apiKey}`, "x-gateway-upstream-key": upstreamKey };
    const project = await chat({ ...auth, "x-gateway-project": "no-such-project" });
    expect(project.statusCode).toBe(404);
    expect(JSON.stringify(await project.body.json())).toContain("no-such-project");
    const workload = await chat({ ...auth, "x-gateway-workload": "no-such-workload" });
    expect(workload.statusCode).toBe(404);
    expect(JSON.stringify(await workload.body.json())).toContain("no-such-workload");
    await expectProviderAError(
      await messages({
        "x-api-key": h.apiKey,
        "x-gateway-upstream-key": upstreamKey,
        "x-gateway-workload": "nope",
      }),
      404,
      "not_found_error",
    );
    nothingForwarded();
  });

  it("a body over the limit: 413, declared or chunked, without reading it whole", async () => {
    const auth = { authorization: `Bearer ${h.apiKey}`, "x-gateway-upstream-key": upstreamKey };
    const big = Buffer.alloc(10_000, "a");
    await expectProviderBError(await chat(auth, big), 413, "request_too_large");
    // Chunked: no content-length, so the limit is enforced while reading.
    const chunked = async function* () {
      for (let i = 0; i < 100; i++) yield Buffer.alloc(1024, "b");
    };
    const res = await request(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: auth,
      body: Readable.from(chunked()),
    });
    await expectProviderBError(res, 413, "request_too_large");
    await expectProviderAError(
      await messages({ "x-api-key": h.apiKey, "x-gateway-upstream-key": upstreamKey }, "x".repeat(5000)),
      413,
      "request_too_large",
    );
    nothingForwarded();
  });

  it("no upstream key and no catalog model: 404 model_not_found, nothing forwarded", async () => {
    await expectProviderBError(await chat({ authorization: `Bearer ${h.apiKey}` }), 404, "model_not_found", {
      mode: "managed",
      effectiveModel: "gpt-5.4-mini",
    });
    nothingForwarded();
  });

  it("malformed x-gateway-tags: 400", async () => {
    const res = await chat({
      authorization: `Bearer ${h.apiKey}`,
      "x-gateway-upstream-key": upstreamKey,
      "x-gateway-tags": "novalue",
    });
    await expectProviderBError(res, 400, null);
    nothingForwarded();
  });

  it("an unknown gateway path: 404 in the provider format", async () => {
    const res = await request(`${h.gateway.url}/v1/embeddings`, { method: "POST", body: "{}" });
    await expectProviderBError(res, 404, "not_found", { mode: "managed", effectiveModel: "" });
    nothingForwarded();
  });
});
