import { testStores } from "@gateway/db/testing";
import { deployment, putCatalogModel } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlaneHarness, startControlPlane } from "./support/harness.ts";

describe.each(testStores())("control-plane consistency: routing status (%s)", (store) => {
  let h: ControlPlaneHarness;
  beforeAll(async () => {
    h = await startControlPlane({ store });
  });
  afterAll(() => h.close());

  const workloads = () => `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`;

  it("routing-status derives the mode from the dial as stored, and names no model when passthrough", async () => {
    await putCatalogModel(h, "dial-model", {
      display_name: "Dial",
      deployments: [
        deployment(
          "chat_completions",
          "https://upstream.example",
          "gpt-5.4-nano",
          "GATEWAY_UPSTREAM_KEY_UNUSED",
        ),
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
});
