import type { ApiKeyEntry, ProjectEntry, WorkloadEntry } from "@gateway/cache";
import { configKeys } from "@gateway/cache";
import { testStores } from "@gateway/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, type Json, keyHash, startHarness } from "./harness.ts";

const full = {
  requests_per_minute: 60,
  tokens_per_minute: 100_000,
  max_concurrent: 4,
  budget: { usd: "250.5", period: "month", applies_to: "managed" },
};
/** `full` as the gateway reads it from its config cache. */
const fullEntry = {
  rpm: 60,
  tpm: 100_000,
  concurrent: 4,
  budget: { micros: 250_500_000, period: "month", appliesTo: "managed" },
};
const none = { requests_per_minute: null, tokens_per_minute: null, max_concurrent: null, budget: null };

/** The limits of a key, a project and a workload on the admin surface, and what reaches the gateway. */
describe.each(testStores())("control plane: limits (%s)", (store) => {
  let h: Harness;
  /** A key, a project and a workload of this org, each with the cache entry the gateway reads. */
  let scopes: { scope: string; id: string; path: string; entry: () => Promise<Json> }[];
  /** Another org's key (its value and id), default project and workload. */
  let other: { orgId: string; key: string; keyId: string; projectId: string; workloadId: string };
  const admin = (path: string) => `/admin/v1/orgs/${h.orgId}${path}`;
  const customer = (path: string) => `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}${path}`;

  beforeAll(async () => {
    h = await startHarness({ store });
    const key = (await h.cp("POST", admin("/api_keys"), { name: "limited" })).json;
    const project = (await h.cp("POST", admin("/projects"), { slug: "limited", name: "L" })).json;
    const workload = (await h.cp("POST", customer("/workloads"), { name: "limited" })).json;
    scopes = [
      {
        scope: "api_key",
        id: key.metadata.id,
        path: admin(`/api_keys/${key.metadata.id}/limits`),
        entry: () => h.gateway.cache.get<ApiKeyEntry>(configKeys.apiKey(keyHash(key.value))),
      },
      {
        scope: "project",
        id: project.id,
        path: admin(`/projects/${project.id}/limits`),
        entry: () => h.gateway.cache.get<ProjectEntry>(configKeys.project(h.orgId, "limited")),
      },
      {
        scope: "workload",
        id: workload.id,
        path: admin(`/projects/${h.projectId}/workloads/${workload.id}/limits`),
        entry: () => h.gateway.cache.get<WorkloadEntry>(configKeys.workload(h.projectId, "limited")),
      },
    ];
    const org = (await h.op("POST", "/operator/v1/orgs", { name: "other" })).json;
    const otherWorkload = await h.cp(
      "POST",
      `/customer/v1/orgs/${org.org.id}/projects/${org.default_project.id}/workloads`,
      { name: "theirs" },
      org.api_key.value,
    );
    other = {
      orgId: org.org.id,
      key: org.api_key.value,
      keyId: org.api_key.metadata.id,
      projectId: org.default_project.id,
      workloadId: otherWorkload.json.id,
    };
  });
  afterAll(() => h.close());

  it("reads all-null limits and no updated_at for a scope without any", async () => {
    for (const s of scopes) {
      const res = await h.cp("GET", s.path);
      expect(res.status, s.scope).toBe(200);
      expect(res.json).toEqual({ scope: s.scope, scope_id: s.id, ...none, updated_at: null });
    }
  });

  it("sets limits, keeps the fields a PUT leaves out, clears those it sends as null", async () => {
    for (const s of scopes) {
      const set = await h.cp("PUT", s.path, full);
      expect(set.status, s.scope).toBe(200);
      expect(set.json).toEqual({
        scope: s.scope,
        scope_id: s.id,
        ...full,
        budget: { ...full.budget, usd: "250.50" },
        updated_at: expect.any(String),
      });
      expect((await h.cp("GET", s.path)).json).toEqual(set.json);
      expect((await s.entry()).limits, s.scope).toEqual(fullEntry);

      const partial = await h.cp("PUT", s.path, { requests_per_minute: 120, max_concurrent: null });
      expect(partial.json).toMatchObject({
        requests_per_minute: 120,
        tokens_per_minute: 100_000,
        max_concurrent: null,
        budget: { usd: "250.50", period: "month", applies_to: "managed" },
      });
      const { concurrent: _cleared, ...rest } = fullEntry;
      expect((await s.entry()).limits, s.scope).toEqual({ ...rest, rpm: 120 });
      expect((await h.cp("GET", s.path)).json).toEqual(partial.json);
    }
  });

  it("keeps the limits in the entries when the scope itself changes", async () => {
    const [, project, workload] = scopes;
    const workloadId = workload!.id;
    await h.cp("PATCH", customer(`/workloads/${workloadId}`), { capture_enabled: false });
    await h.cp("PATCH", admin(`/projects/${h.projectId}/workloads/${workloadId}`), {
      capture_sample_rate: 0.5,
    });
    expect(await workload!.entry()).toMatchObject({ captureEnabled: false, limits: { rpm: 120 } });
    await h.cp("PATCH", admin("/projects/limited"), { name: "Renamed" });
    expect((await project!.entry()).limits).toMatchObject({ rpm: 120 });
  });

  it("publishes the default project and workload under their default keys too", async () => {
    const workloads = (await h.cp("GET", customer("/workloads"))).json.workloads;
    const main = workloads.find((w: Json) => w.is_default);
    await h.cp("PUT", admin(`/projects/${h.projectId}/limits`), { max_concurrent: 8 });
    await h.cp("PUT", admin(`/projects/${h.projectId}/workloads/${main.id}/limits`), { max_concurrent: 2 });
    const cached = (key: string) => h.gateway.cache.get<{ limits?: unknown }>(key);
    expect((await cached(configKeys.project(h.orgId, "default")))?.limits).toEqual({ concurrent: 8 });
    expect((await cached(configKeys.defaultProject(h.orgId)))?.limits).toEqual({ concurrent: 8 });
    expect((await cached(configKeys.workload(h.projectId, "main")))?.limits).toEqual({ concurrent: 2 });
    expect((await cached(configKeys.defaultWorkload(h.projectId)))?.limits).toEqual({ concurrent: 2 });
    // the gateway still serves the scopes it now reads limits with
    expect(await h.chat(h.apiKey)).toBe(200);
  });

  it("refuses a bad body with a 400 naming the field, and changes nothing", async () => {
    const bad: [unknown, string][] = [
      [{ requests_per_minute: -1 }, "requests_per_minute"],
      [{ tokens_per_minute: 0 }, "tokens_per_minute"],
      [{ max_concurrent: 1.5 }, "max_concurrent"],
      [{ requests_per_minute: "60" }, "requests_per_minute"],
      [{ requests_per_minute: 1_000_000_001 }, "requests_per_minute"],
      [{ budget: { ...full.budget, usd: "1.1234567" } }, "budget.usd"],
      [{ budget: { ...full.budget, usd: 250 } }, "budget.usd"],
      [{ budget: { ...full.budget, usd: "0.00" } }, "budget.usd"],
      [{ budget: { ...full.budget, usd: "-5" } }, "budget.usd"],
      [{ budget: { ...full.budget, period: "week" } }, "budget.period"],
      [{ budget: { ...full.budget, applies_to: "byo" } }, "budget.applies_to"],
      [{ budget: { usd: "5" } }, "budget.period"],
      [{ budget: { ...full.budget, extra: 1 } }, "budget"],
      [{ requests_per_minute: 5, rpm: 5 }, "(body)"],
      [[], "(body)"],
    ];
    for (const s of scopes) {
      const before = (await h.cp("GET", s.path)).json;
      const entryBefore = await s.entry();
      for (const [body, field] of bad) {
        const res = await h.cp("PUT", s.path, body);
        const label = `${s.scope} ${JSON.stringify(body)}`;
        expect(res.status, label).toBe(400);
        expect(res.json.error.code, label).toBe("bad_request");
        expect(
          res.json.error.details.issues.map((i: Json) => i.field),
          label,
        ).toContain(field);
      }
      const notJson = await fetch(h.gateway.url + s.path, {
        method: "PUT",
        headers: { authorization: `Bearer ${h.apiKey}`, "content-type": "application/json" },
        body: "{",
      });
      expect(notJson.status).toBe(400);
      expect((await h.cp("GET", s.path)).json).toEqual(before);
      expect(await s.entry()).toEqual(entryBefore);
    }
  });

  it("answers 404 for another org's or an unknown key, project or workload, a revoked key, a deleted project", async () => {
    const paths = [
      admin(`/api_keys/${other.keyId}/limits`),
      admin("/api_keys/api_key_unknown/limits"),
      admin(`/projects/${other.projectId}/limits`),
      admin("/projects/proj_unknown/limits"),
      // the project's slug is not its id
      admin("/projects/limited/limits"),
      admin(`/projects/${h.projectId}/workloads/${other.workloadId}/limits`),
      admin(`/projects/${other.projectId}/workloads/${other.workloadId}/limits`),
      admin(`/projects/${h.projectId}/workloads/usp_unknown/limits`),
    ];
    const key = (await h.cp("POST", admin("/api_keys"), { name: "doomed" })).json.metadata.id;
    await h.cp("PUT", admin(`/api_keys/${key}/limits`), { max_concurrent: 1 });
    expect((await h.cp("DELETE", admin(`/api_keys/${key}`))).status).toBe(204);
    const project = (await h.cp("POST", admin("/projects"), { slug: "doomed", name: "D" })).json;
    const workload = (await h.cp("GET", `/customer/v1/orgs/${h.orgId}/projects/${project.id}/workloads`)).json
      .workloads[0];
    expect((await h.cp("DELETE", admin("/projects/doomed"))).status).toBe(204);
    paths.push(
      admin(`/api_keys/${key}/limits`),
      admin(`/projects/${project.id}/limits`),
      admin(`/projects/${project.id}/workloads/${workload.id}/limits`),
    );
    for (const path of paths) {
      for (const [method, body] of [
        ["GET", undefined],
        ["PUT", { max_concurrent: 3 }],
      ] as const) {
        const res = await h.cp(method, path, body);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.json.error.code).toBe("not_found");
      }
    }
    // what this org's key was refused did not happen
    const theirs = await h.cp(
      "GET",
      `/admin/v1/orgs/${other.orgId}/api_keys/${other.keyId}/limits`,
      undefined,
      other.key,
    );
    expect(theirs.json).toMatchObject({ ...none, updated_at: null });
  });

  it("drops the limits from the entries when the last one is cleared", async () => {
    for (const s of scopes) {
      const cleared = await h.cp("PUT", s.path, {
        requests_per_minute: null,
        tokens_per_minute: null,
        budget: null,
      });
      expect(cleared.status, s.scope).toBe(200);
      expect(cleared.json).toEqual({ scope: s.scope, scope_id: s.id, ...none, updated_at: null });
      expect((await h.cp("GET", s.path)).json).toEqual(cleared.json);
      const entry = await s.entry();
      expect(entry, s.scope).toMatchObject({ id: s.id });
      expect(entry, s.scope).not.toHaveProperty("limits");
    }
  });
});
