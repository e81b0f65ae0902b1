import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eventually, type Harness, type Json, startHarness } from "./harness.ts";

const responsesKey = "sk-operator-responses-51aa";

describe("responses endpoints (managed credentials only)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ credentials: { GATEWAY_PROVIDER_B_MANAGED_KEY: responsesKey } });
  });
  afterAll(() => h.close());
  beforeEach(() => h.providerB.reset());

  const client = (headers: Record<string, string> = {}) =>
    new OpenAI({ apiKey: h.apiKey, baseURL: `${h.gateway.url}/v1`, defaultHeaders: headers, maxRetries: 0 });

  it("JSON and streaming with the operator's key; the model goes through unchanged", async () => {
    const direct = new OpenAI({ apiKey: responsesKey, baseURL: `${h.providerB.url}/v1` });
    const body = { model: "gpt-5.5", input: "Name a prime above 90.", instructions: "Be brief." };
    const response = await client().responses.create(body).withResponse();
    expect(response.data.status).toBe("completed");
    expect(response.response.headers.get("x-gateway-mode")).toBe("managed");
    expect(response.response.headers.get("x-gateway-effective-model")).toBe("gpt-5.5");
    const upstream = h.providerB.requests[0]!;
    expect(upstream.headers.authorization).toBe(`Bearer ${responsesKey}`);
    expect(upstream.body.toString()).toBe(JSON.stringify(body));
    const viaRaw = await client().responses.create(body).asResponse();
    const directRaw = await direct.responses.create(body).asResponse();
    expect(await viaRaw.text()).toBe(await directRaw.text());

    const stream = await client().responses.create({ ...body, stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
  });

  it("a Codex-style session: streaming turns and a compact call, attributed to the named workload", async () => {
    const workload = await h.cp("POST", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`, {
      name: "codex",
    });
    expect(workload.status).toBe(201);
    const codex = client({ "x-gateway-project": "default", "x-gateway-workload": "codex" });
    const ids: string[] = [];
    const input: OpenAI.Responses.ResponseInput = [{ role: "user", content: "refactor the parser" }];
    for (let turn = 0; turn < 3; turn++) {
      const { data: stream, response } = await codex.responses
        .create({
          model: "gpt-5.5",
          input,
          stream: true,
          store: false,
          include: ["reasoning.encrypted_content"],
        })
        .withResponse();
      ids.push(response.headers.get("x-gateway-request-id")!);
      let completed = false;
      for await (const event of stream) if (event.type === "response.completed") completed = true;
      expect(completed).toBe(true);
      input.push({ role: "user", content: `turn ${turn + 1}` });
    }
    const compacted = await codex.responses.compact({ model: "gpt-5.5", input }).withResponse();
    expect(compacted.data.object).toBe("response.compaction");
    expect(compacted.data.output.at(-1)?.type).toBe("compaction");
    ids.push(compacted.response.headers.get("x-gateway-request-id")!);
    expect(h.providerB.requests.map((r) => r.path)).toEqual([
      "/v1/responses",
      "/v1/responses",
      "/v1/responses",
      "/v1/responses/compact",
    ]);

    const listed = await eventually(async () => {
      const page = await h.cp(
        "GET",
        `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads/${workload.json.id}/captures`,
      );
      return page.json.captures.length === 4 ? page.json.captures : undefined;
    });
    expect(listed.map((c: { request_id: string }) => c.request_id).sort()).toEqual([...ids].sort());
  });

  it("a stream the upstream breaks off ends with an error event and the response.failed clients read", async () => {
    const res = await fetch(`${h.gateway.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.apiKey}`, "x-mock-reset-after-frames": "3" },
      body: JSON.stringify({ model: "gpt-5.5", input: "hi", stream: true }),
    });
    const frames = (await res.text()).trimEnd().split("\n\n");
    const created = JSON.parse(frames[0]!.split("\ndata: ")[1]!);
    const [error, failed] = frames.slice(-2).map((f) => f.split("\n"));
    expect(error![0]).toBe("event: error");
    expect(failed![0]).toBe("event: response.failed");
    const failure = JSON.parse(failed![1]!.slice("data: ".length));
    expect(failure).toMatchObject({
      type: "response.failed",
      // the response the stream had named, as the live API's response.failed does
      response: { id: created.response.id, status: "failed", error: { code: "upstream_disconnected" } },
    });
    expect(failure.response.error.message).toBe(JSON.parse(error![1]!.slice("data: ".length)).error.message);

    // The SDK surfaces it as an error, not as a stream that merely ended.
    const stream = await client().responses.create(
      { model: "gpt-5.5", input: "hi", stream: true },
      {
        headers: { "x-mock-reset-after-frames": "3" },
      },
    );
    await expect(async () => {
      for await (const _event of stream);
    }).rejects.toThrow(/upstream provider/);
  });

  it("refuses an upstream key with 400, and answers 503 when no managed key is configured", async () => {
    const withKey = await fetch(`${h.gateway.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.apiKey}`, "x-gateway-upstream-key": "sk-mine" },
      body: JSON.stringify({ model: "gpt-5.5", input: "hi" }),
    });
    expect(withKey.status).toBe(400);
    expect(((await withKey.json()) as Json).error.message).toContain("x-gateway-upstream-key");
    expect(h.providerB.requests).toHaveLength(0);

    const bare = await startHarness();
    try {
      const res = await fetch(`${bare.gateway.url}/v1/responses/compact`, {
        method: "POST",
        headers: { authorization: `Bearer ${bare.apiKey}` },
        body: JSON.stringify({ model: "gpt-5.5", input: "hi" }),
      });
      expect(res.status).toBe(503);
      expect(((await res.json()) as Json).error).toMatchObject({
        type: "server_error",
        code: "model_unavailable",
      });
      expect(bare.providerB.requests).toHaveLength(0);
    } finally {
      await bare.close();
    }
  });
});
