import type { CatalogModelEntry, WorkloadEntry } from "@gateway/cache";
import { configKeys } from "@gateway/cache";
import { testStores } from "@gateway/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, type Json, startHarness } from "./harness.ts";

const deployment = {
  provider_label: "provider_b",
  wire_format: "chat_completions",
  base_url: "http://127.0.0.1:9",
  upstream_model: "served-small",
  credential_env: "GATEWAY_UPSTREAM_KEY_TEST_MANAGED",
};

/** Workloads on the customer surface and routing on the admin surface, with the write-through. */
describe.each(testStores())("control plane: workloads and routing (%s)", (store) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ store });
    for (const [id, active] of [
      ["fast-1", true],
      ["smart-1", true],
      ["retired-1", false],
    ] as const) {
      const res = await h.op("PUT", `/operator/v1/models/${id}`, {
        display_name: id,
        active,
        deployments: [deployment],
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => h.close());
  const customer = (path = "") => `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}${path}`;
  const admin = (path = "") => `/admin/v1/orgs/${h.orgId}${path}`;
  const cached = (name: string) => h.gateway.cache.get<WorkloadEntry>(configKeys.workload(h.projectId, name));

  it("GET /models lists the active catalog in the admin shape", async () => {
    const res = await h.cp("GET", admin("/models"));
    expect(res.status).toBe(200);
    expect(res.json.map((m: Json) => m.id)).toEqual(["fast-1", "smart-1"]);
    expect(res.json[0]).toEqual({
      id: "fast-1",
      display_name: "fast-1",
      active: true,
      created_at: expect.any(String),
    });
    // The catalog reached the gateway's cache, inactive models included.
    expect(await h.gateway.cache.get<string[]>(configKeys.catalogIndex())).toEqual([
      "fast-1",
      "smart-1",
      "retired-1",
    ]);
    const retired = await h.gateway.cache.get<CatalogModelEntry>(configKeys.catalogModel("retired-1"));
    expect(retired).toMatchObject({ active: false, deployments: [{ upstreamModel: "served-small" }] });
  });

  it("customer PATCH renames and switches capture; DELETE refuses the default workload", async () => {
    const w = (await h.cp("POST", customer("/workloads"), { name: "batch", capture_enabled: false })).json;
    expect(w).toMatchObject({
      capture_enabled: false,
      capture_sample_rate: 1,
      route_model_id: null,
      is_default: false,
    });
    const renamed = await h.cp("PATCH", customer(`/workloads/${w.id}`), {
      name: "batch-v2",
      capture_enabled: true,
    });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({ id: w.id, name: "batch-v2", capture_enabled: true });
    expect(await cached("batch")).toBeUndefined();
    expect(await cached("batch-v2")).toMatchObject({ id: w.id, captureEnabled: true });
    expect(await h.chat(h.apiKey, { "x-gateway-workload": "batch-v2" })).toBe(200);
    expect(await h.chat(h.apiKey, { "x-gateway-workload": "batch" })).toBe(404);

    expect((await h.cp("PATCH", customer(`/workloads/${w.id}`), { name: "main" })).status).toBe(409);
    for (const body of [
      { name: "Up" },
      { capture_enabled: "yes" },
      { model_id: null },
      { name: "x".repeat(64) },
    ]) {
      expect((await h.cp("PATCH", customer(`/workloads/${w.id}`), body)).status, JSON.stringify(body)).toBe(
        400,
      );
    }
    const list = (await h.cp("GET", customer("/workloads"))).json.workloads;
    const main = list.find((x: Json) => x.is_default);
    const refused = await h.cp("DELETE", customer(`/workloads/${main.id}`));
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe("conflict");
    expect((await h.cp("DELETE", customer(`/workloads/${w.id}`))).status).toBe(204);
    expect((await h.cp("DELETE", customer(`/workloads/${w.id}`))).status).toBe(404);
    expect(await cached("batch-v2")).toBeUndefined();
    expect(await h.chat(h.apiKey, { "x-gateway-workload": "batch-v2" })).toBe(404);
    const after = (await h.cp("GET", customer("/workloads"))).json.workloads;
    expect(after.filter((x: Json) => x.is_default)).toHaveLength(1);
  });

  it("follows the routing rules of the interface", async () => {
    const w = (await h.cp("POST", customer("/workloads"), { name: "agent", capture_enabled: false })).json;
    const route = (body: unknown) =>
      h.cp("PUT", admin(`/projects/${h.projectId}/workloads/${w.id}/route`), body);
    const patch = (body: unknown) => h.cp("PATCH", admin(`/projects/${h.projectId}/workloads/${w.id}`), body);

    // A new route: 100% by default, and capture turns on.
    const set = await route({ model_id: "fast-1" });
    expect(set.status).toBe(200);
    expect(set.json).toMatchObject({
      route_model_id: "fast-1",
      route_traffic_pct: 100,
      capture_enabled: true,
    });
    expect(await cached("agent")).toMatchObject({
      routeModelId: "fast-1",
      routeTrafficPct: 100,
      captureEnabled: true,
    });

    // The dial alone, then another model: the dial stays; capture off only when asked.
    expect((await patch({ route_traffic_pct: 25 })).json.route_traffic_pct).toBe(25);
    const moved = await patch({ model_id: "smart-1", capture_enabled: false });
    expect(moved.json).toMatchObject({
      route_model_id: "smart-1",
      route_traffic_pct: 25,
      capture_enabled: false,
    });

    // Clearing keeps capture as it was and returns the dial to 0.
    const cleared = await route({ model_id: null });
    expect(cleared.json).toMatchObject({
      route_model_id: null,
      route_traffic_pct: 0,
      capture_enabled: false,
    });
    expect(await cached("agent")).toMatchObject({ routeModelId: null, routeTrafficPct: 0 });

    // PATCH: omitted model_id leaves the route; other fields change alone.
    const other = await patch({ capture_sample_rate: 0.25, name: "agent-2" });
    expect(other.json).toMatchObject({ route_model_id: null, capture_sample_rate: 0.25, name: "agent-2" });
    expect(await cached("agent-2")).toMatchObject({ captureSampleRate: 0.25 });
    expect(await cached("agent")).toBeUndefined();
    const withPct = await route({ model_id: "fast-1", route_traffic_pct: 40, capture_enabled: false });
    expect(withPct.json).toMatchObject({ route_traffic_pct: 40, capture_enabled: false });
    await route({ model_id: null });

    // Refusals change nothing.
    const state = (await h.cp("GET", customer("/workloads"))).json;
    const refusals: [unknown, number, string, "put" | "patch"][] = [
      [{ model_id: "no-such-model" }, 422, "model_id", "put"],
      [{ model_id: "retired-1" }, 422, "model_id", "patch"],
      [{ route_traffic_pct: 50 }, 409, "route_traffic_pct", "patch"],
      [{}, 400, "model_id", "put"],
      [{ model_id: "fast-1", route_traffic_pct: 101 }, 400, "route_traffic_pct", "put"],
      [{ model_id: "fast-1", route_traffic_pct: -1 }, 400, "route_traffic_pct", "put"],
      [{ model_id: "fast-1", route_traffic_pct: "50" }, 400, "route_traffic_pct", "put"],
      [{ model_id: null, route_traffic_pct: 10 }, 400, "route_traffic_pct", "put"],
      [{ model_id: 7 }, 400, "model_id", "patch"],
      [{ capture_sample_rate: 1.5 }, 400, "capture_sample_rate", "patch"],
      [{ capture_sample_rate: -0.1 }, 400, "capture_sample_rate", "patch"],
      [{ capture_enabled: null }, 400, "capture_enabled", "patch"],
      [{ name: "main" }, 409, "main", "patch"],
      [{ priority: 1 }, 400, "priority", "patch"],
    ];
    for (const [body, status, mention, via] of refusals) {
      const res = await (via === "put" ? route(body) : patch(body));
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.json.error.message).toContain(mention);
    }
    // Numbers JSON cannot carry as numbers: 1e309 parses to Infinity, NaN is not JSON at all.
    for (const raw of [
      '{"model_id":"fast-1","route_traffic_pct":1e309}',
      '{"model_id":"fast-1","route_traffic_pct":NaN}',
    ]) {
      const res = await fetch(h.gateway.url + admin(`/projects/${h.projectId}/workloads/${w.id}/route`), {
        method: "PUT",
        headers: { authorization: `Bearer ${h.apiKey}`, "content-type": "application/json" },
        body: raw,
      });
      expect(res.status, raw).toBe(400);
    }
    expect((await h.cp("GET", customer("/workloads"))).json).toEqual(state);
    expect(
      (await h.cp("PUT", admin(`/projects/${h.projectId}/workloads/usp_nope/route`), { model_id: null }))
        .status,
    ).toBe(404);
  });
});
