import { callsTopic } from "@gateway/contracts";
import { callRows, testStores } from "@gateway/db/testing";
import { plainUsage, testCallEvent } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Harness, startHarness } from "./harness.ts";

describe.each(testStores())("control-plane consistency (%s)", (store) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ store });
  });
  afterAll(() => h.close());

  const workloads = () => `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`;
  const chatVia = (workload: string) =>
    fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${h.apiKey}`,
        "x-gateway-upstream-key": "sk-up",
        "x-gateway-workload": workload,
      },
      body: JSON.stringify({ model: "gpt-5.4-mini", messages: [] }),
    });

  it("a rename racing a delete never leaves a deleted workload resolving on the gateway", async () => {
    for (let round = 0; round < 10; round++) {
      const created = await h.cp("POST", workloads(), { name: `race-${round}` });
      const id = created.json.id;
      const [renamed, deleted] = await Promise.all([
        h.cp("PATCH", `${workloads()}/${id}`, { name: `race-${round}-renamed` }),
        h.cp("DELETE", `${workloads()}/${id}`),
      ]);
      expect(deleted.status).toBe(204);
      expect([200, 404]).toContain(renamed.status);
      for (const name of [`race-${round}`, `race-${round}-renamed`]) {
        const res = await chatVia(name);
        expect(res.status, `${name} after round ${round}`).toBe(404);
        await res.text();
      }
    }
  });

  it("records calls whose token counts exceed 32 bits", async () => {
    const requestId = "req_bigtokens0000000000000000";
    const workloadList = await h.cp("GET", workloads());
    const event = testCallEvent({
      request_id: requestId,
      org_id: h.orgId,
      project_id: h.projectId,
      workload_id: workloadList.json.workloads[0].id,
      api_key_id: "api_key_x",
      endpoint: "messages",
      provider_label: "provider_a",
      // a cheap model: $2,800, below the most that one call's cost reads back as on SQLite, $9,007
      // (docs/decisions.md, "Money: integers, exact")
      requested_model: "claude-haiku-5-5",
      served_model: "claude-haiku-5-5",
      usage: plainUsage(3_000_000_000, 5_000_000_000),
    });
    h.gateway.internals.bus.publish(callsTopic, requestId, event);
    const row = await eventually(async () => {
      const [found] = await callRows(h.gateway.internals.db, { requestIds: [requestId] });
      return found?.pricingStatus === "priced" ? found : undefined;
    }, 5000);
    expect(row.inputTokens).toBe(3_000_000_000);
    expect(row.outputTokens).toBe(5_000_000_000);
  });

  it("a model name holding U+0000 is recorded (replaced) and does not stall the consumers", async () => {
    const send = async (model: string) => {
      const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${h.apiKey}`, "x-gateway-upstream-key": "sk-up" },
        body: JSON.stringify({ model, messages: [] }),
      });
      await res.text();
      return res.headers.get("x-gateway-request-id")!;
    };
    const poisoned = await send("gpt\u0000nul");
    const after = await send("gpt-5.4-mini");
    const rows = await eventually(async () => {
      const found = await callRows(h.gateway.internals.db, { requestIds: [poisoned, after] });
      return found.length === 2 ? found : undefined;
    }, 5000);
    expect(rows.find((r) => r.requestId === poisoned)!.requestedModel).toBe("gpt\uFFFDnul");
  });
});
