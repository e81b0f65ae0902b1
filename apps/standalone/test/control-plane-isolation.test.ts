import { type ControlPlaneServices, createControlPlaneApp } from "@gateway/control-plane";
import { testStores } from "@gateway/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Harness, startHarness } from "./harness.ts";

/**
 * How each route is probed. Org-scoped routes get a body that would succeed for the owner, so
 * that the only reason to refuse is the org boundary. Every mounted route needs an entry:
 * adding a route without one fails the test below.
 */
type Case = "public" | "operator" | { body?: unknown };
const cases: Record<string, Case> = {
  "GET /openapi.json": "public",
  "GET /docs": "public",
  "GET /livez": "public",
  "GET /readyz": "public",
  "POST /operator/v1/orgs": "operator",
  "GET /operator/v1/orgs": "operator",
  "GET /operator/v1/models": "operator",
  "GET /operator/v1/models/:model_id": "operator",
  "PUT /operator/v1/models/:model_id": "operator",
  "GET /operator/v1/prices": "operator",
  "POST /operator/v1/prices": "operator",
  "GET /operator/v1/orgs/:org_id/retention": "operator",
  "PUT /operator/v1/orgs/:org_id/retention": "operator",
  "GET /admin/v1/orgs/:org_id/api_keys": {},
  "POST /admin/v1/orgs/:org_id/api_keys": { body: { name: "intruder" } },
  "DELETE /admin/v1/orgs/:org_id/api_keys/:key_id": {},
  "GET /admin/v1/orgs/:org_id/projects": {},
  "POST /admin/v1/orgs/:org_id/projects": { body: { slug: "intruder", name: "x" } },
  "POST /admin/v1/orgs/:org_id/projects/default": {},
  "GET /admin/v1/orgs/:org_id/projects/:slug": {},
  "PATCH /admin/v1/orgs/:org_id/projects/:slug": { body: { name: "hijacked" } },
  "DELETE /admin/v1/orgs/:org_id/projects/:slug": {},
  "GET /admin/v1/orgs/:org_id/models": {},
  "PUT /admin/v1/orgs/:org_id/projects/:project_id/workloads/:workload_id/route": {
    body: { model_id: null },
  },
  "PATCH /admin/v1/orgs/:org_id/projects/:project_id/workloads/:workload_id": {
    body: { capture_enabled: false },
  },
  "GET /admin/v1/orgs/:org_id/api_keys/:key_id/limits": {},
  "PUT /admin/v1/orgs/:org_id/api_keys/:key_id/limits": { body: { max_concurrent: 1 } },
  "GET /admin/v1/orgs/:org_id/projects/:project_id/limits": {},
  "PUT /admin/v1/orgs/:org_id/projects/:project_id/limits": { body: { max_concurrent: 1 } },
  "GET /admin/v1/orgs/:org_id/projects/:project_id/workloads/:workload_id/limits": {},
  "PUT /admin/v1/orgs/:org_id/projects/:project_id/workloads/:workload_id/limits": {
    body: { max_concurrent: 1 },
  },
  "GET /admin/v1/orgs/:org_id/projects/:project_id/routing-status": {},
  "GET /admin/v1/orgs/:org_id/projects/:project_id/provider-health": {},
  "GET /admin/v1/orgs/:org_id/projects/:project_id/status": {},
  "GET /admin/v1/orgs/:org_id/projects/:project_id/workload-status": {},
  "GET /admin/v1/orgs/:org_id/projects/:project_id/usage-summary": {},
  "GET /admin/v1/orgs/:org_id/projects/:project_id/limits-status": {},
  "GET /admin/v1/orgs/:org_id/calls/:correlation_id/cost": {},
  "GET /admin/v1/orgs/:org_id/projects/:project_id/calls": {},
  "GET /admin/v1/orgs/:org_id/projects/:project_id/calls/:request_id": {},
  "GET /admin/v1/orgs/:org_id/projects/:project_id/timeseries": {},
  "GET /customer/v1/orgs/:org_id/projects/:project_id/workloads": {},
  "POST /customer/v1/orgs/:org_id/projects/:project_id/workloads": { body: { name: "intruder" } },
  "PATCH /customer/v1/orgs/:org_id/projects/:project_id/workloads/:workload_id": {
    body: { name: "hijacked" },
  },
  "DELETE /customer/v1/orgs/:org_id/projects/:project_id/workloads/:workload_id": {},
  "GET /customer/v1/orgs/:org_id/projects/:project_id/captures": {},
  "GET /customer/v1/orgs/:org_id/projects/:project_id/workloads/:workload_id/captures": {},
  "GET /customer/v1/orgs/:org_id/projects/:project_id/captures/:request_id": {},
};

/**
 * Every route of the JSON API the app mounts (middleware entries are `ALL`), as `METHOD /path`.
 * The console's pages (`/console`) read and write only through these routes, as the signed-in
 * org, so this matrix holds for them too (apps/standalone/test/console/ tests their session).
 */
const mounted = () =>
  createControlPlaneApp({} as ControlPlaneServices)
    .routes.filter((r) => r.method !== "ALL" && !r.path.startsWith("/console"))
    .map((r) => `${r.method} ${r.path}`);

/** The ids one org owns, by path parameter name. */
type Ids = Record<string, string>;

it("every mounted control-plane route has an isolation case", () => {
  const missing = mounted().filter((k) => !(k in cases));
  expect(missing, "add these routes to the isolation matrix").toEqual([]);
});

describe.each(testStores())("control plane: cross-org isolation (%s)", (store) => {
  let h: Harness;
  let victim: Ids;
  let attacker: Ids & { key: string };
  beforeAll(async () => {
    h = await startHarness({ store });
    // The victim: the harness org, with a project, a workload, a second key and a capture.
    await h.cp("POST", `/admin/v1/orgs/${h.orgId}/projects`, { slug: "victim-proj", name: "V" });
    const workload = await h.cp("POST", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`, {
      name: "victim-wl",
    });
    const spare = await h.cp("POST", `/admin/v1/orgs/${h.orgId}/api_keys`, { name: "spare" });
    expect(await h.chat(h.apiKey)).toBe(200);
    const capture = await eventually(async () => {
      const res = await h.cp("GET", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/captures`);
      return res.json.captures[0];
    });
    victim = {
      org_id: h.orgId,
      project_id: h.projectId,
      slug: "victim-proj",
      workload_id: workload.json.id,
      key_id: spare.json.metadata.id,
      request_id: capture.request_id,
      correlation_id: capture.request_id,
    };
    // The attacker: another org with the same kinds of things, and a key of its own.
    const org = (await h.op("POST", "/operator/v1/orgs", { name: "attacker" })).json;
    const k = org.api_key.value;
    const project = org.default_project.id;
    await h.cp("POST", `/admin/v1/orgs/${org.org.id}/projects`, { slug: "atk-proj", name: "A" }, k);
    const w = await h.cp(
      "POST",
      `/customer/v1/orgs/${org.org.id}/projects/${project}/workloads`,
      { name: "atk" },
      k,
    );
    attacker = {
      key: k,
      org_id: org.org.id,
      project_id: project,
      slug: "atk-proj",
      workload_id: w.json.id,
      key_id: org.api_key.metadata.id,
      request_id: "req_none",
      correlation_id: "req_none",
    };
  });
  afterAll(() => h.close());

  const fill = (path: string, ids: Ids) =>
    path.replace(/:([a-z_]+)/g, (_, name: string) => {
      const value = ids[name];
      if (value === undefined) throw new Error(`no test id for :${name} in ${path}`);
      return value;
    });
  const snapshot = async () => {
    const admin = `/admin/v1/orgs/${h.orgId}`;
    return {
      // without `last_used_at`: the costing worker writes it when the setup's call is recorded,
      // which may land while the probes run; no route probed here writes it
      keys: (await h.cp("GET", `${admin}/api_keys`)).json.api_keys.map(
        ({ last_used_at: _, ...key }: Record<string, unknown>) => key,
      ),
      projects: (await h.cp("GET", `${admin}/projects`)).json,
      workloads: (await h.cp("GET", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`)).json,
      limits: [
        (await h.cp("GET", `${admin}/api_keys/${victim.key_id}/limits`)).json,
        (await h.cp("GET", `${admin}/projects/${h.projectId}/limits`)).json,
        (await h.cp("GET", `${admin}/projects/${h.projectId}/workloads/${victim.workload_id}/limits`)).json,
      ],
    };
  };

  it("a foreign key gets 404 on every route of this org, and a foreign id 404 under its own org", async () => {
    const before = await snapshot();
    for (const route of new Set(mounted())) {
      const probe = cases[route];
      if (probe === undefined) throw new Error(`no case for ${route}`);
      const [method, fullPath] = route.split(" ") as [string, string];
      if (probe === "public") {
        const res = await fetch(h.gateway.url + fullPath);
        expect(res.status, route).toBe(200);
        continue;
      }
      if (probe === "operator") {
        // An org key is not the operator token, whatever the org.
        const body = method === "GET" ? undefined : {};
        const res = await h.cp(
          method,
          fill(fullPath, { model_id: "any", org_id: attacker.org_id! }),
          body,
          attacker.key,
        );
        expect(res.status, route).toBe(401);
        continue;
      }
      // 1. This org's path, every id this org's, with the other org's key.
      const direct = await h.cp(method, fill(fullPath, victim), probe.body, attacker.key);
      expect(direct.status, `${route} with a foreign key`).toBe(404);
      expect(direct.json.error.code).toBe("not_found");
      // 2. The attacker's own org and ids, with one of this org's ids swapped in at a time.
      const params = [...fullPath.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!).filter((p) => p !== "org_id");
      for (const param of params) {
        const path = fill(fullPath, { ...attacker, [param]: victim[param]! });
        const res = await h.cp(method, path, probe.body, attacker.key);
        expect(res.status, `${route} with this org's :${param}`).toBe(404);
      }
    }
    expect(await snapshot()).toEqual(before);
    expect(await h.chat(h.apiKey, { "x-gateway-project": "victim-proj" })).toBe(200);
  });
});
