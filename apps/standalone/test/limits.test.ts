import { callRows } from "@gateway/db/testing";
import { scrape } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  deployment,
  eventually,
  type Harness,
  type Json,
  operatorToken,
  putCatalogModel,
  startHarness,
  untilCosted,
} from "./harness.ts";

const operatorKey = "sk-operator-limits-51c0";

describe("limits on the embedded default", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ credentials: { GATEWAY_UPSTREAM_KEY_LIMITS: operatorKey } });
    await putCatalogModel(h, "budget-chat", {
      display_name: "Budget chat",
      deployments: [
        deployment("chat_completions", h.providerB.url, "gpt-5.4-mini", "GATEWAY_UPSTREAM_KEY_LIMITS"),
      ],
    });
    // the catalog id is what a managed call is priced by
    const price = await fetch(`${h.gateway.url}/operator/v1/prices`, {
      method: "POST",
      headers: { authorization: `Bearer ${operatorToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "budget-chat",
        effective_from: "2026-01-01T00:00:00Z",
        input_usd_per_mtok: "1.00",
        cache_write_5m_usd_per_mtok: "1.25",
        cache_write_1h_usd_per_mtok: "2.00",
        cache_read_usd_per_mtok: "0.10",
        output_usd_per_mtok: "5.00",
      }),
    });
    expect(price.status).toBe(201);
  });
  afterAll(() => h.close());

  const admin = (path: string) => `/admin/v1/orgs/${h.orgId}${path}`;
  /** A fresh project (so that each test has its own limits), with its default workload's id. */
  async function newProject(slug: string) {
    const project = await h.cp("POST", admin("/projects"), { slug, name: slug });
    expect(project.status).toBe(201);
    const listed = await h.cp("GET", `/customer/v1/orgs/${h.orgId}/projects/${project.json.id}/workloads`);
    const workloads: Json[] = listed.json.workloads ?? listed.json;
    return { id: project.json.id as string, slug, workloadId: workloads[0].id as string };
  }
  async function putLimits(path: string, limits: unknown) {
    const res = await h.cp("PUT", admin(`${path}/limits`), limits);
    expect(res.status).toBe(200);
  }
  const chat = (slug: string, extra: Record<string, string> = {}, model = "gpt-5.4-mini") =>
    fetch(`${h.gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${h.apiKey}`,
        "x-gateway-upstream-key": "sk-up",
        "x-gateway-project": slug,
        ...extra,
      },
      body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
    });
  const rowsOf = async (ids: string[]) => {
    await untilCosted(h.gateway, ids);
    const rows = await callRows(h.gateway.internals.db, { requestIds: ids });
    return rows.map((r) => ({
      id: r.requestId,
      status: r.status,
      refusedBy: r.refusedBy,
      reason: r.unpricedReason,
    }));
  };

  it("refuses past a project's requests per minute with provider B's 429, sends nothing upstream and records the refusal", async () => {
    const p = await newProject("rpm-chat");
    await putLimits(`/projects/${p.id}`, { requests_per_minute: 3 });
    const upstreamBefore = h.providerB.requests.length;
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await chat(p.slug));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(h.providerB.requests.length - upstreamBefore).toBe(3);
    const refused = answers[3]!;
    expect(await refused.json()).toEqual({
      error: {
        message: expect.stringMatching(
          /^Rate limit reached for project 'rpm-chat' on requests per minute: limit 3\. Please try again in \d+(\.\d+)?s\.$/,
        ),
        type: "requests",
        param: null,
        code: "rate_limit_exceeded",
      },
    });
    const waitMs = Number(refused.headers.get("retry-after-ms"));
    expect(waitMs).toBeGreaterThan(0);
    expect(waitMs).toBeLessThanOrEqual(20_000);
    expect(refused.headers.get("retry-after")).toBe(String(Math.ceil(waitMs / 1000)));
    expect(refused.headers.get("x-ratelimit-limit-requests")).toBe("3");
    expect(refused.headers.get("x-ratelimit-remaining-requests")).toBe("0");
    expect(refused.headers.get("x-ratelimit-reset-requests")).toMatch(/^\d+(\.\d+)?(ms|s)$/);

    const ids = answers.map((r) => r.headers.get("x-gateway-request-id")!);
    const rows = await rowsOf(ids);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(ids.map((id) => byId.get(id)?.refusedBy ?? null)).toEqual([
      null,
      null,
      null,
      "project.requests_per_minute",
      "project.requests_per_minute",
    ]);
    // a refusal costs nothing: no usage, never priced
    expect(byId.get(ids[3]!)).toMatchObject({ status: 429, reason: "error_response" });
    const metrics = await scrape(h.gateway.url);
    expect(
      metrics.value("gateway_limit_refusals_total", { scope: "project", limit: "requests_per_minute" }),
    ).toBe(2);
  });

  it("spends a workload's tokens per minute after each answer, and refuses on the messages endpoint in provider A's form", async () => {
    const p = await newProject("tpm-messages");
    await putLimits(`/projects/${p.id}/workloads/${p.workloadId}`, { tokens_per_minute: 1 });
    const send = () =>
      fetch(`${h.gateway.url}/v1/messages`, {
        method: "POST",
        headers: {
          "x-api-key": h.apiKey,
          "anthropic-version": "2023-06-01",
          "x-gateway-upstream-key": "sk-up",
          "x-gateway-project": p.slug,
        },
        body: JSON.stringify({
          model: "claude-sonnet-5",
          max_tokens: 64,
          messages: [{ role: "user", content: "hi" }],
        }),
      });
    // the bucket had room: admitted; its answer's tokens put the bucket in debt
    expect((await send()).status).toBe(200);
    const refused = await send();
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as Json;
    expect(body).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    expect(body.error.message).toContain("workload 'main' on tokens per minute: limit 1.");
    expect(body.request_id).toBe(refused.headers.get("x-gateway-request-id"));
    expect(refused.headers.get("anthropic-ratelimit-tokens-limit")).toBe("1");
    expect(refused.headers.get("anthropic-ratelimit-tokens-remaining")).toBe("0");
    const reset = Date.parse(refused.headers.get("anthropic-ratelimit-tokens-reset")!);
    expect(reset).toBeGreaterThan(Date.now());
  });

  it("holds a key to its calls at once, and frees the slot when a call ends", async () => {
    const p = await newProject("concurrent");
    const key = await h.cp("POST", admin("/api_keys"), { name: "one at a time" });
    await putLimits(`/api_keys/${key.json.metadata.id}`, { max_concurrent: 1 });
    const send = (extra: Record<string, string> = {}) =>
      fetch(`${h.gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key.json.value}`,
          "x-gateway-upstream-key": "sk-up",
          "x-gateway-project": p.slug,
          ...extra,
        },
        body: JSON.stringify({ model: "gpt-5.4-mini", messages: [] }),
      });
    const slow = send({ "x-mock-first-byte-delay-ms": "400" });
    await eventually(async () =>
      h.providerB.requests.some((r) => r.headers["x-mock-first-byte-delay-ms"]) ? true : undefined,
    );
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as Json).error.message).toBe(
      `Concurrency limit reached for API key ${key.json.metadata.id}: at most 1 calls at once. Please try again in 1s.`,
    );
    expect(refused.headers.get("retry-after")).toBe("1");
    expect((await slow).status).toBe(200);
    expect((await send()).status).toBe(200);
  });

  it("stops managed calls once a project's managed budget is spent, and leaves the caller's own traffic alone", async () => {
    const p = await newProject("budget");
    await putLimits(`/projects/${p.id}`, {
      budget: { usd: "0.000001", period: "day", applies_to: "managed" },
    });
    const managed = () =>
      fetch(`${h.gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${h.apiKey}`, "x-gateway-project": p.slug },
        body: JSON.stringify({ model: "budget-chat", messages: [{ role: "user", content: "hi" }] }),
      });
    const first = await managed();
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    await untilCosted(h.gateway, [first.headers.get("x-gateway-request-id")!]);
    // priced, then its spend published to the limits: the budget is spent
    const refused = await eventually(async () => {
      const res = await managed();
      return res.status === 429 ? res : void (await res.arrayBuffer());
    }, 5_000);
    expect(refused.headers.get("x-should-retry")).toBe("false");
    const tomorrow = new Date();
    tomorrow.setUTCHours(24, 0, 0, 0);
    expect(await refused.json()).toEqual({
      error: {
        message: `The daily budget of $0.000001 for managed calls of project 'budget' is spent; it resets at ${tomorrow.toISOString()}.`,
        type: "insufficient_quota",
        param: null,
        code: "insufficient_quota",
      },
    });
    // the caller's own key still works: the budget is on the operator's credential
    const byo = await chat(p.slug);
    expect(byo.status).toBe(200);
    // a route onto the catalog model keeps BYO calls on the caller's provider while the budget is spent
    const routed = await h.cp("PUT", admin(`/projects/${p.id}/workloads/${p.workloadId}/route`), {
      model_id: "budget-chat",
      route_traffic_pct: 100,
    });
    expect(routed.status).toBe(200);
    const stayed = await chat(p.slug);
    expect(stayed.status).toBe(200);
    expect(stayed.headers.get("x-gateway-mode")).toBe("byo");
    expect(stayed.headers.get("x-gateway-route")).toBe("primary");
  });
});
