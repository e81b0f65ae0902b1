import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFsBlobStore } from "@gateway/blobstore";
import { createInProcessCache } from "@gateway/cache";
import { type CallEvent, type LimitsUpdate, limitsEntry, silentLogger } from "@gateway/contracts";
import { buildServices, createControlPlaneApp, ensureFirstOrg } from "@gateway/control-plane";
import { type DbHandle, listProjectWorkloads } from "@gateway/db";
import { openTestDb, testStores } from "@gateway/db/testing";
import { createInProcessQueue } from "@gateway/jobs";
import { createInProcessLimits } from "@gateway/limits";
import { testCallEvent } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limitsStatusRecord } from "../../control-plane/src/routes/reports/schemas.ts";
import {
  deployment,
  type Harness,
  type Json,
  putCatalogModel,
  startHarness,
  untilCosted,
} from "./harness.ts";

const credentials = { GATEWAY_UPSTREAM_KEY_LIMITS: "sk-operator-limits" };
const noRefusals = { requests_per_minute: 0, tokens_per_minute: 0, max_concurrent: 0, budget: 0 };

describe.each(testStores())("limits-status report (%s)", (store) => {
  let h: Harness;
  const ids = { main: "", batch: "", otherProject: "", ci: "", ciValue: "" };
  const costed: string[] = [];

  const admin = (path: string) => `/admin/v1/orgs/${h.orgId}${path}`;
  const project = (path: string) => admin(`/projects/${h.projectId}${path}`);

  /** PUT a scope's limits through the admin surface (`path` is the scope's, under the org). */
  async function putLimits(path: string, limits: LimitsUpdate) {
    expect((await h.cp("PUT", admin(`${path}/limits`), limits)).status).toBe(200);
  }

  async function chat(key: string, workload: "main" | "batch", model: "gpt-5.4-mini" | "limits-chat") {
    const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        // the catalog model is served with the operator's credential: no caller key needed
        ...(model === "gpt-5.4-mini" ? { "x-gateway-upstream-key": "sk-up" } : {}),
        "x-gateway-workload": workload,
      },
      body: JSON.stringify({ model, messages: [{ role: "user", content: `call ${costed.length}` }] }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    costed.push(res.headers.get("x-gateway-request-id")!);
  }

  /** A call a limit refused, as the gateway publishes it. */
  function refused(refusedBy: CallEvent["refused_by"], over: Partial<CallEvent>) {
    const event = testCallEvent({
      org_id: h.orgId,
      project_id: h.projectId,
      workload_id: ids.main,
      api_key_id: ids.ci,
      status: 429,
      refused_by: refusedBy,
      ...over,
    });
    h.gateway.internals.bus.publish(event.schema, event.request_id, event);
    costed.push(event.request_id);
  }

  beforeAll(async () => {
    h = await startHarness({ store, credentials });
    const { db } = h.gateway.internals;
    const [main] = await listProjectWorkloads(db, h.projectId);
    ids.main = main!.id;
    const batch = await h.cp("POST", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`, {
      name: "batch",
    });
    ids.batch = batch.json.id;
    ids.otherProject = (await h.cp("POST", admin("/projects"), { slug: "other", name: "Other" })).json.id;
    const ci = await h.cp("POST", admin("/api_keys"), { name: "ci" });
    ids.ci = ci.json.metadata.id;
    ids.ciValue = ci.json.value;
    await h.cp("POST", admin("/api_keys"), { name: "no-limits" });
    const revoked = await h.cp("POST", admin("/api_keys"), { name: "revoked" });

    await putCatalogModel(h, "limits-chat", {
      display_name: "Limits chat",
      deployments: [
        deployment("chat_completions", h.providerB.url, "gpt-5.4-nano", "GATEWAY_UPSTREAM_KEY_LIMITS"),
      ],
    });
    const price = await h.op("POST", "/operator/v1/prices", {
      model: "limits-chat",
      effective_from: "2000-01-01T00:00:00Z",
      input_usd_per_mtok: "1.234567",
      cache_write_5m_usd_per_mtok: "1.5",
      cache_write_1h_usd_per_mtok: "2",
      cache_read_usd_per_mtok: "0.123457",
      output_usd_per_mtok: "9.876543",
    });
    expect(price.status).toBe(201);

    // Budgets far above this traffic: once the gateway enforces them, these calls still pass.
    await putLimits(`/projects/${h.projectId}`, {
      requests_per_minute: 1000,
      budget: { usd: "50.00", period: "month", applies_to: "managed" },
    });
    await putLimits(`/projects/${h.projectId}/workloads/${ids.main}`, {
      max_concurrent: 4,
      budget: { usd: "1", period: "day", applies_to: "all" },
    });
    await putLimits(`/api_keys/${ids.ci}`, {
      tokens_per_minute: 100_000,
      budget: { usd: "3", period: "day", applies_to: "all" },
    });
    await putLimits(`/api_keys/${revoked.json.metadata.id}`, { requests_per_minute: 5 });
    expect((await h.cp("DELETE", admin(`/api_keys/${revoked.json.metadata.id}`))).status).toBe(204);

    // main: two managed calls and one BYO call of the starter key; batch: two BYO calls of `ci`
    await chat(h.apiKey, "main", "limits-chat");
    await chat(h.apiKey, "main", "limits-chat");
    await chat(h.apiKey, "main", "gpt-5.4-mini");
    await chat(ids.ciValue, "batch", "gpt-5.4-mini");
    await chat(ids.ciValue, "batch", "gpt-5.4-mini");

    refused({ scope: "project", limit: "budget" }, { api_key_id: "api_key_starter" });
    refused({ scope: "project", limit: "budget" }, { api_key_id: "api_key_starter" });
    refused({ scope: "workload", limit: "requests_per_minute" }, { workload_id: ids.batch });
    refused({ scope: "api_key", limit: "tokens_per_minute" }, {});
    // two hours ago: outside the default window
    refused(
      { scope: "workload", limit: "max_concurrent" },
      { received_at: new Date(Date.now() - 2 * 3_600_000).toISOString() },
    );
    // the key's refusal in another project is that project's
    refused(
      { scope: "api_key", limit: "budget" },
      { project_id: ids.otherProject, workload_id: "usp_other" },
    );
    await untilCosted(h.gateway, costed);
  });
  afterAll(() => h?.close());

  const usageCost = async (groupBy: string, window: string) => {
    const { json } = await h.cp("GET", project(`/usage-summary?window=${window}&group_by=${groupBy}`));
    return (key: string) => json.groups.find((g: Json) => g[groupBy] === key)?.customer_cost_usd as number;
  };

  it("lists the project, each workload and the org's live keys with limits, answering its strict schema", async () => {
    const { status, json } = await h.cp("GET", project("/limits-status"));
    expect(status).toBe(200);
    expect(limitsStatusRecord.safeParse(json).error?.issues ?? []).toEqual([]);
    expect(json).toMatchObject({ project_id: h.projectId, window: "1h" });
    expect(Date.parse(json.window_end) - Date.parse(json.window_start)).toBe(3_600_000);
    expect(json.scopes.map((s: Json) => [s.scope, s.scope_id, s.name])).toEqual([
      ["project", h.projectId, "default"],
      ["workload", ids.main, "main"],
      ["workload", ids.batch, "batch"],
      ["api_key", ids.ci, "ci"],
    ]);
    const [proj, main, batch, ci] = json.scopes;
    expect(proj.limits).toEqual({
      requests_per_minute: 1000,
      tokens_per_minute: null,
      max_concurrent: null,
      budget: { usd: "50.00", period: "month", applies_to: "managed" },
    });
    expect(batch.limits).toEqual({
      requests_per_minute: null,
      tokens_per_minute: null,
      max_concurrent: null,
      budget: null,
    });
    expect(batch.budget).toBeNull();
    // a limit not set has no use; a set one reads the limiter's count (exact values: the test below)
    expect(batch.use).toEqual({ requests_per_minute: null, tokens_per_minute: null, concurrent: null });
    expect(proj.use).toEqual({
      requests_per_minute: expect.any(Number),
      tokens_per_minute: null,
      concurrent: null,
    });
    expect(main.use).toEqual({ requests_per_minute: null, tokens_per_minute: null, concurrent: 0 });
    expect(ci.use).toEqual({
      requests_per_minute: null,
      tokens_per_minute: expect.any(Number),
      concurrent: null,
    });
  });

  it("shows each budget's exact spend in its period, equal to the usage summary's cost of the same calls", async () => {
    const { json } = await h.cp("GET", project("/limits-status"));
    const [proj, main, , ci] = json.scopes;
    const now = new Date();
    const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    expect(proj.budget).toMatchObject({
      usd: "50.00",
      period: "month",
      applies_to: "managed",
      period_start: monthStart.toISOString(),
      resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
    });
    expect(main.budget).toMatchObject({
      period_start: dayStart.toISOString(),
      resets_at: new Date(dayStart.getTime() + 86_400_000).toISOString(),
    });
    for (const b of [proj.budget, main.budget, ci.budget]) expect(b.spent_usd).toMatch(/^\d+(\.\d+)?$/);

    // managed spend only: the managed calls are those of the catalog model
    const byModel = await usageCost("model", "30d");
    const byWorkload = await usageCost("workload", "1d");
    expect(Number(proj.budget.spent_usd)).toBeGreaterThan(0);
    expect(Number(proj.budget.spent_usd)).toBe(byModel("limits-chat"));
    expect(Number(main.budget.spent_usd)).toBe(byWorkload("main"));
    // `ci` called through batch alone, and nobody else did
    expect(Number(ci.budget.spent_usd)).toBeGreaterThan(0);
    expect(Number(ci.budget.spent_usd)).toBe(byWorkload("batch"));
    expect(Number(main.budget.spent_usd)).toBeGreaterThan(Number(proj.budget.spent_usd));
  });

  it("counts the project's calls each scope refused in the window, by limit", async () => {
    const refusedOf = async (window: string) => {
      const { json } = await h.cp("GET", project(`/limits-status?window=${window}`));
      return json.scopes.map((s: Json) => s.refused);
    };
    expect(await refusedOf("1h")).toEqual([
      { total: 2, by_limit: { ...noRefusals, budget: 2 } },
      { total: 0, by_limit: noRefusals },
      { total: 1, by_limit: { ...noRefusals, requests_per_minute: 1 } },
      { total: 1, by_limit: { ...noRefusals, tokens_per_minute: 1 } },
    ]);
    expect((await refusedOf("3h"))[1]).toEqual({ total: 1, by_limit: { ...noRefusals, max_concurrent: 1 } });
  });

  it.each(["window=25h", "window=0h", "window=2d", "window=1.5h", "bogus=1"])(
    "?%s is a 400 with the control-plane error shape",
    async (query) => {
      const { status, json } = await h.cp("GET", project(`/limits-status?${query}`));
      expect(status).toBe(400);
      expect(json.error.code).toBe("bad_request");
    },
  );

  it("accepts 24h and answers 404 for an unknown or another org's project", async () => {
    expect((await h.cp("GET", project("/limits-status?window=24h"))).status).toBe(200);
    expect((await h.cp("GET", admin("/projects/proj_nope/limits-status"))).status).toBe(404);
    const third = await h.op("POST", "/operator/v1/orgs", { name: "third" });
    const foreign = await h.cp("GET", project("/limits-status"), undefined, third.json.api_key.value);
    expect(foreign.status).toBe(404);
  });
});

describe("limits-status with the limiter at hand", () => {
  let handle: DbHandle;
  let blobsDir: string;
  afterAll(async () => {
    await handle?.close();
    await rm(blobsDir, { recursive: true, force: true });
  });

  it("shows each set limit's use as the limiter counts it", async () => {
    handle = await openTestDb("sqlite");
    blobsDir = await mkdtemp(join(tmpdir(), "gw-limits-status-"));
    const limits = createInProcessLimits();
    const services = buildServices(
      {
        db: handle.db,
        cache: createInProcessCache(),
        blobs: createFsBlobStore(blobsDir),
        log: silentLogger,
        limits,
        jobs: createInProcessQueue(),
      },
      {},
    );
    const first = (await ensureFirstOrg(services))!;
    const app = createControlPlaneApp(services);
    const request = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const res = await app.request(`/admin/v1/orgs/${first.orgId}${path}`, {
        method,
        headers: { authorization: `Bearer ${first.apiKey}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return res.json();
    };
    const project = await request("POST", "/projects/default");
    const set = { requests_per_minute: 10, tokens_per_minute: null, max_concurrent: 5, budget: null };
    await request("PUT", `/projects/${project.id}/limits`, set);
    const admitted = await limits.admit({
      requestId: "req_held",
      scopes: [{ scope: "project", id: project.id, limits: limitsEntry(set)! }],
      managed: false,
    });
    expect(admitted.ok).toBe(true);

    const status = await request("GET", `/projects/${project.id}/limits-status`);
    expect(status.scopes[0].use).toEqual({ requests_per_minute: 1, tokens_per_minute: null, concurrent: 1 });
    // the default workload has no limits: nothing to count
    expect(status.scopes[1].use).toEqual({
      requests_per_minute: null,
      tokens_per_minute: null,
      concurrent: null,
    });
  });
});
