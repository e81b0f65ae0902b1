import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness, untilCosted } from "./harness.ts";

const upstreamKey = "sk-upstream-canary-5e2a91";

/**
 * A caller holds the ids its SDK shows it (the provider's message or completion id, and the
 * provider's request id from its header), not ours: the call-cost route takes either. Through
 * the running all-in-one process, whose store finds them through its FTS5 table
 * (docs/decisions.md, "Upstream ids on SQLite").
 */
describe("the call-cost route, by the ids an SDK shows", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());

  async function costOf(id: string) {
    const { status, json } = await h.cp(
      "GET",
      `/admin/v1/orgs/${h.orgId}/calls/${encodeURIComponent(id)}/cost`,
    );
    expect(status, id).toBe(200);
    return json;
  }

  it("anthropic: the message id and the request id find the call", async () => {
    const client = new Anthropic({
      apiKey: h.apiKey,
      baseURL: h.gateway.url,
      defaultHeaders: { "x-gateway-upstream-key": upstreamKey },
    });
    const { data, response, request_id } = await client.messages
      .create({ model: "claude-sonnet-5", max_tokens: 64, messages: [{ role: "user", content: "Cost me." }] })
      .withResponse();
    const ours = response.headers.get("x-gateway-request-id")!;
    await untilCosted(h.gateway, [ours]);
    expect(data.id).toMatch(/^msg_/);
    expect(request_id).toBeTruthy();
    for (const id of [data.id, request_id!, ours]) {
      const cost = await costOf(id);
      expect(cost.request_id, id).toBe(ours);
      expect(cost.usage.output_tokens).toBe(data.usage.output_tokens);
    }
  });

  it("openai: the completion id and the request id find the call", async () => {
    const client = new OpenAI({
      apiKey: h.apiKey,
      baseURL: `${h.gateway.url}/v1`,
      defaultHeaders: { "x-gateway-upstream-key": upstreamKey },
    });
    const { data, response, request_id } = await client.chat.completions
      .create({ model: "gpt-5.4-mini", messages: [{ role: "user", content: "Cost me." }] })
      .withResponse();
    const ours = response.headers.get("x-gateway-request-id")!;
    await untilCosted(h.gateway, [ours]);
    expect(data.id).toMatch(/^chatcmpl-/);
    expect(request_id).toBeTruthy();
    for (const id of [data.id, request_id!]) {
      const cost = await costOf(id);
      expect(cost.request_id, id).toBe(ours);
      expect(cost.usage.output_tokens).toBe(data.usage!.completion_tokens);
    }
    // the same ids in another case are other ids
    const { status } = await h.cp("GET", `/admin/v1/orgs/${h.orgId}/calls/${data.id.toUpperCase()}/cost`);
    expect(status).toBe(404);
  });
});
