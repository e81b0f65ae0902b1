import { callsTopic } from "@gateway/contracts";
import { calls, testStores } from "@gateway/db";
import { plainUsage, testCallEvent } from "@gateway/testkit";
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployment, eventually, type Harness, putCatalogModel, startHarness } from "./harness.ts";

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

  it("routing-status derives the mode from the dial as stored, and names no model when passthrough", async () => {
    await putCatalogModel(h, "dial-model", {
      display_name: "Dial",
      deployments: [
        deployment("chat_completions", h.providerB.url, "gpt-5.4-nano", "GATEWAY_UPSTREAM_KEY_UNUSED"),
      ],
    });
    const cases = [
      [0.4, "gateway", 1],
      [99.6, "gateway", 99],
      [100, "primary", 100],
      [30, "gateway", 30],
    ] as const;
    const ids: string[] = [];
    for (const [pct] of cases) {
      const created = await h.cp("POST", workloads(), { name: `dial-${String(pct).replace(".", "-")}` });
      const routed = await h.cp(
        "PUT",
        `/admin/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads/${created.json.id}/route`,
        { model_id: "dial-model", route_traffic_pct: pct },
      );
      expect(routed.status).toBe(200);
      ids.push(created.json.id);
    }
    const status = await h.cp("GET", `/admin/v1/orgs/${h.orgId}/projects/${h.projectId}/routing-status`);
    expect(status.status).toBe(200);
    cases.forEach(([_pct, mode, active], i) => {
      const entry = status.json.workloads.find((w: { workload_id: string }) => w.workload_id === ids[i]);
      expect(entry).toMatchObject({
        route_mode: mode,
        active_traffic_pct: active,
        model: "dial-model",
        provider_label: "provider_b",
      });
    });
    const main = status.json.workloads.find((w: { display_name: string }) => w.display_name === "main");
    expect(main).toMatchObject({
      route_mode: "passthrough",
      active_traffic_pct: 0,
      model: null,
      provider_label: null,
    });
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
      requested_model: "claude-sonnet-5",
      served_model: "claude-sonnet-5",
      usage: plainUsage(3_000_000_000, 5_000_000_000),
    });
    h.gateway.internals.bus.publish(callsTopic, requestId, event);
    const row = await eventually(async () => {
      const [found] = await h.gateway.internals.db.select().from(calls).where(eq(calls.requestId, requestId));
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
      const found = await h.gateway.internals.db
        .select()
        .from(calls)
        .where(inArray(calls.requestId, [poisoned, after]));
      return found.length === 2 ? found : undefined;
    }, 5000);
    expect(rows.find((r) => r.requestId === poisoned)!.requestedModel).toBe("gpt\uFFFDnul");
  });
});
