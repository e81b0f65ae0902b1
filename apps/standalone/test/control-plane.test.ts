import { testStores } from "@gateway/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, type Harness, type Json, operatorToken, startHarness } from "./harness.ts";

describe.each(testStores())("control plane (%s)", (store) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ store });
  });
  afterAll(() => h.close());

  const admin = (path = "") => `/admin/v1/orgs/${h.orgId}${path}`;
  const customer = (path = "") => `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}${path}`;
  const gatewayCall = (key: string) =>
    fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "x-gateway-upstream-key": "sk-up" },
      body: JSON.stringify({ model: "gpt-5.4-mini", messages: [] }),
    });

  async function newOrg(name: string) {
    const res = await fetch(`${h.gateway.url}/operator/v1/orgs`, {
      method: "POST",
      headers: { authorization: `Bearer ${operatorToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    return { status: res.status, json: (await res.json()) as Json };
  }

  it("names every answer with its own request id, refusals and errors included", async () => {
    const answers = await Promise.all([
      fetch(`${h.gateway.url}${admin("/projects")}`, { headers: { authorization: `Bearer ${h.apiKey}` } }),
      fetch(`${h.gateway.url}${admin("/projects")}`),
      fetch(`${h.gateway.url}/admin/v1/no-such-route`),
      fetch(`${h.gateway.url}/openapi.json`),
    ]);
    for (const res of answers) await res.arrayBuffer();
    expect(answers.map((res) => res.status)).toEqual([200, 401, 404, 200]);
    const ids = answers.map((res) => res.headers.get("x-request-id"));
    for (const id of ids) expect(id).toMatch(/^cpreq_[0-9a-z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  describe("operator orgs", () => {
    it("creates an org with its starter key (shown once) and default project", async () => {
      const { status, json } = await newOrg("acme");
      expect(status).toBe(201);
      expect(json.org).toMatchObject({ id: expect.stringMatching(/^org_/), name: "acme" });
      expect(json.api_key.value).toMatch(/^sk_[A-Za-z0-9]{40}$/);
      expect(json.api_key.metadata).toMatchObject({
        id: expect.stringMatching(/^api_key_/),
        last_used_at: null,
      });
      expect(json.default_project).toMatchObject({
        slug: "default",
        org_id: json.org.id,
        settings: {},
        deleted_at: null,
      });
      expect((await gatewayCall(json.api_key.value)).status).toBe(200);
    });

    it("refuses without the operator token, and validates the body", async () => {
      const res = await fetch(`${h.gateway.url}/operator/v1/orgs`, {
        method: "POST",
        body: JSON.stringify({ name: "x" }),
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as Json).error.code).toBe("unauthorized");
      const wrong = await h.cp("POST", "/operator/v1/orgs", { name: "x" }, h.apiKey);
      expect(wrong.status).toBe(401);
      const bad = await fetch(`${h.gateway.url}/operator/v1/orgs`, {
        method: "POST",
        headers: { authorization: `Bearer ${operatorToken}` },
        body: JSON.stringify({ name: "", extra: 1 }),
      });
      expect(bad.status).toBe(400);
      const body = (await bad.json()) as Json;
      expect(body.error.code).toBe("bad_request");
      expect(body.error.message).toContain("name");
    });
  });

  describe("api keys", () => {
    it("creates, lists metadata only, and revokes; a revoked key stops working at once", async () => {
      const created = await h.cp("POST", admin("/api_keys"), { name: "ci" });
      expect(created.status).toBe(201);
      const { value, metadata } = created.json;
      expect(value).toMatch(/^sk_/);
      expect(metadata).toMatchObject({ name: "ci", last_used_at: null });
      expect(metadata.obfuscated_value).toBe(`sk_********${value.slice(-4)}`);
      expect(new Date(metadata.created_at).toISOString()).toBe(metadata.created_at);

      const list = await h.cp("GET", admin("/api_keys"));
      expect(list.status).toBe(200);
      const listed = list.json.api_keys.find((k: { id: string }) => k.id === metadata.id);
      expect(Object.keys(listed).sort()).toEqual([
        "created_at",
        "id",
        "last_used_at",
        "name",
        "obfuscated_value",
      ]);
      expect(JSON.stringify(list.json)).not.toContain(value);

      expect((await gatewayCall(value)).status).toBe(200);
      expect((await h.cp("DELETE", admin(`/api_keys/${metadata.id}`))).status).toBe(204);
      expect((await gatewayCall(value)).status).toBe(401);
      expect((await h.cp("GET", admin("/api_keys"), undefined, value)).status).toBe(401);
      expect((await h.cp("DELETE", admin(`/api_keys/${metadata.id}`))).status).toBe(404);
    });

    it("records last_used_at whenever the gateway validates the key, also on refused requests", async () => {
      const lastUsed = async (id: string) =>
        (await h.cp("GET", admin("/api_keys"))).json.api_keys.find((k: { id: string }) => k.id === id)
          .last_used_at;
      const settled = async (id: string, after: string | null) =>
        eventually(async () => {
          const at: string | null = await lastUsed(id);
          return at !== null && (after === null || at > after) ? at : undefined;
        });

      const { value, metadata } = (await h.cp("POST", admin("/api_keys"), {})).json;
      expect(await lastUsed(metadata.id)).toBeNull();
      await (await gatewayCall(value)).text();
      const afterCall = await settled(metadata.id, null);

      // A request refused for its workload still validated the key.
      const refused = await fetch(`${h.gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${value}`,
          "x-gateway-upstream-key": "sk-up",
          "x-gateway-workload": "nope",
        },
        body: JSON.stringify({ model: "gpt-5.4-mini", messages: [] }),
      });
      expect(refused.status).toBe(404);
      const afterRefused = await settled(metadata.id, afterCall);

      const models = await fetch(`${h.gateway.url}/v1/models`, {
        headers: { authorization: `Bearer ${value}` },
      });
      expect(models.status).toBe(200);
      await settled(metadata.id, afterRefused);
    });
  });

  describe("projects and workloads", () => {
    it("ensure-default is idempotent and get-by-slug answers 404 for an absent project", async () => {
      const a = await h.cp("POST", admin("/projects/default"));
      const b = await h.cp("POST", admin("/projects/default"));
      expect(a.status).toBe(200);
      expect(b.json).toEqual(a.json);
      expect(a.json.id).toBe(h.projectId);
      expect((await h.cp("GET", admin("/projects/default"))).json).toEqual(a.json);
      const missing = await h.cp("GET", admin("/projects/nope"));
      expect(missing.status).toBe(404);
      expect(missing.json.error.code).toBe("not_found");
    });

    it("lists workloads with exactly one default, creates, and refuses duplicates and bad names", async () => {
      const list = await h.cp("GET", customer("/workloads"));
      expect(list.json.workloads.filter((w: { is_default: boolean }) => w.is_default)).toHaveLength(1);
      expect(list.json.workloads[0]).toMatchObject({
        name: "main",
        project_id: h.projectId,
        capture_enabled: true,
        capture_sample_rate: 1,
        route_model_id: null,
        id: expect.stringMatching(/^usp_/),
      });
      const created = await h.cp("POST", customer("/workloads"), { name: "etl_v2-prod" });
      expect(created.status).toBe(201);
      expect((await h.cp("POST", customer("/workloads"), { name: "etl_v2-prod" })).status).toBe(409);
      for (const name of ["", "Upper", "has space", "x".repeat(64), 7, null]) {
        const bad = await h.cp("POST", customer("/workloads"), { name });
        expect(bad.status, String(name)).toBe(400);
        expect(bad.json.error.message).toContain("name");
      }
      expect((await h.cp("POST", customer("/workloads"), { name: "ok", surprise: true })).status).toBe(400);
      const malformed = await fetch(h.gateway.url + customer("/workloads"), {
        method: "POST",
        headers: { authorization: `Bearer ${h.apiKey}` },
        body: "{not json",
      });
      expect(malformed.status).toBe(400);
      // The new workload resolves on the gateway at once.
      const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${h.apiKey}`,
          "x-gateway-upstream-key": "sk-up",
          "x-gateway-workload": "etl_v2-prod",
        },
        body: JSON.stringify({ model: "gpt-5.4-mini", messages: [] }),
      });
      expect(res.status).toBe(200);
    });
  });

  describe("isolation", () => {
    it("another org's key gets 404 for every resource of this org", async () => {
      const other = (await newOrg("other")).json;
      const key = other.api_key.value;
      const keyId = (await h.cp("GET", admin("/api_keys"))).json.api_keys[0].id;
      for (const [method, path] of [
        ["GET", admin("/api_keys")],
        ["POST", admin("/api_keys")],
        ["DELETE", admin(`/api_keys/${keyId}`)],
        ["POST", admin("/projects/default")],
        ["GET", admin("/projects/default")],
        ["GET", customer("/workloads")],
        ["POST", customer("/workloads")],
        ["GET", customer("/captures")],
        ["GET", customer("/captures/req_x")],
      ] as const) {
        const res = await h.cp(method, path, method === "POST" ? { name: "x" } : undefined, key);
        expect(res.status, `${method} ${path}`).toBe(404);
      }
      // Its own project id under this org's path is also not found.
      const ownProject = other.default_project.id;
      const crossed = await h.cp(
        "GET",
        `/customer/v1/orgs/${other.org.id}/projects/${h.projectId}/workloads`,
        undefined,
        key,
      );
      expect(crossed.status).toBe(404);
      expect(
        (
          await h.cp(
            "GET",
            `/customer/v1/orgs/${other.org.id}/projects/${ownProject}/workloads`,
            undefined,
            key,
          )
        ).status,
      ).toBe(200);
    });

    it("missing or malformed credentials get 401", async () => {
      const res = await fetch(h.gateway.url + admin("/api_keys"));
      expect(res.status).toBe(401);
      expect(((await res.json()) as Json).error.code).toBe("unauthorized");
      expect((await h.cp("GET", admin("/api_keys"), undefined, "sk_wrong")).status).toBe(401);
    });
  });
});
