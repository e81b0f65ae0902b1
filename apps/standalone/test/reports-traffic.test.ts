import { type CallEvent, callsTopic, newId } from "@gateway/contracts";
import { listProjectWorkloads, replaceCatalogModel, writeWorkloadChanges } from "@gateway/db";
import { callRows, testStores } from "@gateway/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, type Json, operatorToken, startHarness, untilCosted } from "./harness.ts";
import {
  expectedHealth,
  expectedUsageGroups,
  expectedWorkloadStatus,
  type GeneratedCall,
  inWindow,
  nanoToUsd,
  type Rates,
  type Tokens,
} from "./support/expected-reports.ts";
import { expectedReason, pricedCost, referenceRates, tokensFromBody } from "./support/traffic.ts";

interface Generated extends GeneratedCall {
  endpoint: string;
  stream: boolean;
  upstreamRequestId: string | null;
  upstreamResponseId: string | null;
}

const minute = 60_000;

describe.each(testStores())("reports over generated traffic (%s)", (store) => {
  let h: Harness;
  const set: Generated[] = [];
  const ids: Record<"main" | "batch" | "canary" | "idle", string> = {
    main: "",
    batch: "",
    canary: "",
    idle: "",
  };
  let otherOrgCall = "";
  let rates: Record<string, Rates> = { ...referenceRates };

  const admin = (path: string) => `/admin/v1/orgs/${h.orgId}${path}`;
  const project = (path: string) => admin(`/projects/${h.projectId}${path}`);

  async function viaGateway(spec: {
    workload: "main" | "batch";
    endpoint: "messages" | "chat_completions" | "count_tokens";
    model: string;
    stream?: boolean;
    includeUsage?: boolean;
    fault?: Record<string, string>;
    outcome?: Generated["outcome"];
  }) {
    const stream = spec.stream ?? false;
    const body: Json = {
      model: spec.model,
      max_tokens: 64,
      // A distinct body per call: the mock's ids are a function of the body bytes.
      messages: [{ role: "user", content: `call ${set.length} ${spec.endpoint}` }],
      ...(stream ? { stream: true } : {}),
      ...(spec.includeUsage ? { stream_options: { include_usage: true } } : {}),
    };
    const path = {
      messages: "/v1/messages",
      chat_completions: "/v1/chat/completions",
      count_tokens: "/v1/messages/count_tokens",
    }[spec.endpoint];
    const res = await fetch(h.gateway.url + path, {
      method: "POST",
      headers: {
        authorization: `Bearer ${h.apiKey}`,
        "x-gateway-upstream-key": "sk-up",
        "x-gateway-workload": spec.workload,
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
        ...spec.fault,
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    const format = spec.endpoint === "chat_completions" ? "chat" : "messages";
    const tokens =
      res.status < 400 && spec.endpoint !== "count_tokens" ? tokensFromBody(format, stream, text) : null;
    set.push({
      requestId: res.headers.get("x-gateway-request-id")!,
      workloadId: ids[spec.workload],
      workload: spec.workload,
      at: new Date(0), // the gateway's own timestamp is read back below
      provider: spec.endpoint === "chat_completions" ? "provider_b" : "provider_a",
      model: spec.model,
      route: "primary",
      fallbackReason: null,
      status: res.status,
      outcome: spec.outcome ?? "complete",
      tokens,
      costNano: null,
      unpricedReason: null,
      endpoint: spec.endpoint,
      stream,
      upstreamRequestId: res.headers.get(format === "chat" ? "x-request-id" : "request-id"),
      upstreamResponseId: null,
    });
  }

  function viaBus(spec: {
    workload: "main" | "batch" | "canary";
    minutesAgo: number;
    endpoint?: CallEvent["endpoint"];
    provider?: CallEvent["provider_label"];
    model: string;
    route?: Generated["route"];
    fallbackReason?: "timeout" | "error";
    status?: number;
    tokens?: Tokens | null;
    org?: { orgId: string; projectId: string; workloadId: string };
  }) {
    const requestId = newId("request");
    const at = new Date(t0 - spec.minutesAgo * minute);
    const t = spec.tokens === undefined ? null : spec.tokens;
    const event: CallEvent = {
      schema: callsTopic,
      request_id: requestId,
      org_id: spec.org?.orgId ?? h.orgId,
      project_id: spec.org?.projectId ?? h.projectId,
      workload_id: spec.org?.workloadId ?? ids[spec.workload],
      api_key_id: "api_key_bus",
      received_at: at.toISOString(),
      endpoint: spec.endpoint ?? "responses",
      provider_label: spec.provider ?? "provider_b",
      mode: "byo",
      route: spec.route ?? "primary",
      fallback_reason: spec.fallbackReason ?? null,
      requested_model: spec.model,
      served_model: spec.model,
      stream: false,
      status: spec.status ?? 200,
      first_byte_ms: 5,
      total_ms: 10,
      stream_outcome: "complete",
      error: null,
      upstream_request_id: `up_req_${requestId}`,
      upstream_response_id: `resp_${requestId}`,
      tags: {},
      usage: t && {
        input_tokens: t.input,
        cache_read_input_tokens: t.read,
        cache_creation_input_tokens: t.write5m + t.write1h,
        cache_creation_5m_input_tokens: t.write5m,
        cache_creation_1h_input_tokens: t.write1h,
        output_tokens: t.output,
        raw: { input_tokens: t.input + t.read + t.write5m, note: "bus" },
      },
      capture: null,
    };
    h.gateway.internals.bus.publish(callsTopic, requestId, event);
    if (spec.org) return requestId;
    set.push({
      requestId,
      workloadId: ids[spec.workload],
      workload: spec.workload,
      at,
      provider: event.provider_label,
      model: spec.model,
      route: event.route,
      fallbackReason: event.fallback_reason ?? null,
      status: event.status,
      outcome: "complete",
      tokens: t,
      costNano: null,
      unpricedReason: null,
      endpoint: event.endpoint,
      stream: false,
      upstreamRequestId: event.upstream_request_id,
      upstreamResponseId: event.upstream_response_id,
    });
    // Redelivery: the same event again must change nothing.
    if (set.length % 3 === 0) h.gateway.internals.bus.publish(callsTopic, requestId, event);
    return requestId;
  }

  let t0 = 0;
  const tk = (input: number, read: number, write5m: number, write1h: number, output: number): Tokens => ({
    input,
    read,
    write5m,
    write1h,
    output,
  });

  function applyExpectedCosts() {
    for (const c of set) {
      c.unpricedReason = expectedReason(c, c.endpoint, c.stream, rates);
      c.costNano = c.unpricedReason === null ? pricedCost(c, rates) : null;
    }
  }

  async function settle() {
    await untilCosted(
      h.gateway,
      set.map((c) => c.requestId),
    );
  }

  beforeAll(async () => {
    h = await startHarness({ store });
    t0 = Date.now();
    const { db } = h.gateway.internals;
    const [main] = await listProjectWorkloads(db, h.projectId);
    ids.main = main!.id;
    for (const name of ["batch", "canary", "idle"] as const) {
      const created = await h.cp("POST", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`, {
        name,
      });
      ids[name] = created.json.id;
    }
    for (const [id, displayName, providerLabel] of [
      ["gw-fast", "Fast", "managed"],
      ["gw-pro", "Pro", "provider_b"],
    ] as const) {
      await replaceCatalogModel(db, id, {
        displayName,
        active: true,
        deployments: [
          {
            providerLabel,
            wireFormat: "chat_completions",
            baseUrl: "http://127.0.0.1:9",
            upstreamModel: "m",
            credentialEnv: "X",
            priority: 0,
          },
        ],
      });
    }
    // Declared routes, written directly: the canary carries only bus traffic, so no gateway call is routed.
    await writeWorkloadChanges(db, ids.canary, { routeModelId: "gw-fast", routeTrafficPct: 30 });
    await writeWorkloadChanges(db, ids.idle, { routeModelId: "gw-pro", routeTrafficPct: 100 });

    // Gateway traffic: every endpoint, streaming and not, errors, broken streams.
    for (let i = 0; i < 3; i++)
      await viaGateway({ workload: "main", endpoint: "messages", model: "claude-sonnet-5" });
    for (let i = 0; i < 2; i++)
      await viaGateway({ workload: "main", endpoint: "messages", model: "claude-sonnet-5", stream: true });
    await viaGateway({ workload: "main", endpoint: "count_tokens", model: "claude-sonnet-5" });
    await viaGateway({ workload: "main", endpoint: "messages", model: "claude-unpriced-9" });
    await viaGateway({
      workload: "main",
      endpoint: "messages",
      model: "claude-sonnet-5",
      fault: { "x-mock-status": "500" },
    });
    await viaGateway({
      workload: "main",
      endpoint: "messages",
      model: "claude-sonnet-5",
      stream: true,
      fault: { "x-mock-reset-after-frames": "3" },
      outcome: "truncated",
    });
    for (let i = 0; i < 3; i++)
      await viaGateway({ workload: "batch", endpoint: "chat_completions", model: "gpt-5.4-mini" });
    for (let i = 0; i < 2; i++)
      await viaGateway({
        workload: "batch",
        endpoint: "chat_completions",
        model: "gpt-5.6-terra",
        stream: true,
        includeUsage: true,
      });
    await viaGateway({
      workload: "batch",
      endpoint: "chat_completions",
      model: "gpt-5.4-mini",
      stream: true,
    });
    await viaGateway({
      workload: "batch",
      endpoint: "chat_completions",
      model: "gpt-5.4-mini",
      fault: { "x-mock-status": "429" },
    });
    await viaGateway({
      workload: "batch",
      endpoint: "chat_completions",
      model: "gpt-5.4-mini",
      fault: { "x-mock-status": "503" },
    });
    await viaGateway({
      workload: "batch",
      endpoint: "chat_completions",
      model: "gpt-5.4-mini",
      stream: true,
      includeUsage: true,
      fault: { "x-mock-midstream-error": "1" },
      outcome: "upstream_error",
    });

    // Bus traffic: responses calls, routed and fallen-back calls, spread over 40 days.
    const past = [10, 125, 26 * 60 + 7, 3 * 1440 + 33, 8 * 1440 + 5, 40 * 1440];
    for (const [i, minutesAgo] of past.entries()) {
      viaBus({
        workload: "batch",
        minutesAgo,
        model: "gpt-5.6-sol",
        tokens: tk(1000 + i, 300, 200, 0, 77 + i),
      });
      viaBus({
        workload: "canary",
        minutesAgo: minutesAgo + 1,
        provider: "managed",
        model: "gw-fast",
        route: "gateway",
        tokens: tk(500, 0, 0, 0, 50 + i),
      });
      viaBus({
        workload: "canary",
        minutesAgo: minutesAgo + 2,
        model: "gpt-5.4-mini",
        endpoint: "chat_completions",
        tokens: tk(40, 60, 0, 0, 9),
      });
    }
    viaBus({
      workload: "canary",
      minutesAgo: 3,
      model: "gpt-5.4-mini",
      endpoint: "chat_completions",
      route: "fallback",
      fallbackReason: "timeout",
      tokens: tk(12, 0, 0, 0, 3),
    });
    viaBus({
      workload: "canary",
      minutesAgo: 4,
      model: "gpt-5.4-mini",
      endpoint: "chat_completions",
      route: "fallback",
      fallbackReason: "error",
      tokens: tk(13, 0, 0, 0, 4),
    });
    viaBus({
      workload: "canary",
      minutesAgo: 5,
      provider: "managed",
      model: "gw-fast",
      route: "gateway",
      status: 502,
    });
    viaBus({
      workload: "main",
      minutesAgo: 61,
      endpoint: "messages",
      provider: "provider_a",
      model: "claude-sonnet-5",
      tokens: tk(10, 20, 30, 40, 50),
    });

    const other = await fetch(`${h.gateway.url}/operator/v1/orgs`, {
      method: "POST",
      headers: { authorization: `Bearer ${operatorToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "other" }),
    });
    const otherOrg = (await other.json()) as Json;
    otherOrgCall = viaBus({
      workload: "main",
      minutesAgo: 1,
      model: "gpt-5.6-sol",
      tokens: tk(1, 1, 1, 0, 1),
      org: { orgId: otherOrg.org.id, projectId: otherOrg.default_project.id, workloadId: "usp_other" },
    });

    await settle();
    // The gateway stamps its own times and the upstream ids it saw: read them back as inputs.
    const rows = await callRows(db, { requestIds: set.map((c) => c.requestId) });
    for (const c of set) {
      const row = rows.find((r) => r.requestId === c.requestId)!;
      if (c.at.getTime() === 0) {
        c.at = row.receivedAt;
        c.upstreamResponseId = row.upstreamResponseId;
        expect(row.upstreamRequestId).toBe(c.upstreamRequestId);
      }
    }
    applyExpectedCosts();
  });
  afterAll(() => h?.close());

  it("writes one call row per request, redeliveries included", async () => {
    const rows = await callRows(h.gateway.internals.db, { projectId: h.projectId });
    expect(rows.map((r) => r.requestId).sort()).toEqual(set.map((c) => c.requestId).sort());
  });

  it("answers the cost of every call by any of its ids, exactly", async () => {
    for (const c of set) {
      const correlations = [c.requestId, c.upstreamRequestId, c.upstreamResponseId].filter(
        (x): x is string => !!x,
      );
      expect(correlations.length).toBeGreaterThan(c.endpoint === "count_tokens" || c.status >= 400 ? 0 : 2);
      for (const id of correlations) {
        const { status, json } = await h.cp("GET", admin(`/calls/${encodeURIComponent(id)}/cost`));
        expect(status, id).toBe(200);
        expect(json).toMatchObject({
          org_id: h.orgId,
          request_id: c.requestId,
          pricing_status: c.costNano ? "priced" : "unpriced",
          unpriced_reason: c.unpricedReason,
        });
        if (c.costNano) {
          const n = c.costNano;
          expect(json.customer_cost_usd).toBe(nanoToUsd(n.input + n.write + n.read + n.output));
          expect(json.cost_categories).toEqual({
            uncached_input_usd: nanoToUsd(n.input),
            cache_write_usd: nanoToUsd(n.write),
            cache_read_usd: nanoToUsd(n.read),
            output_usd: nanoToUsd(n.output),
          });
        } else {
          expect(json.customer_cost_usd).toBeNull();
        }
      }
    }
  });

  it("prices a provider B stream only when it carried usage", async () => {
    const streams = set.filter(
      (c) => c.endpoint === "chat_completions" && c.stream && c.outcome === "complete",
    );
    const without = streams.find((c) => c.tokens === null)!;
    const withUsage = streams.find((c) => c.tokens !== null)!;
    const a = await h.cp("GET", admin(`/calls/${without.requestId}/cost`));
    expect(a.json).toMatchObject({
      pricing_status: "unpriced",
      unpriced_reason: "stream_without_usage",
      customer_cost_usd: null,
    });
    const b = await h.cp("GET", admin(`/calls/${withUsage.requestId}/cost`));
    expect(b.json.pricing_status).toBe("priced");
    expect(b.json.cost_categories.cache_read_usd).toBeGreaterThan(0);
    expect(b.json.cost_categories.cache_write_usd).toBeGreaterThan(0);
    expect(b.json.cost_categories.output_usd).toBeGreaterThan(0);
  });

  it("keeps another org's call and unknown ids out of reach", async () => {
    expect((await h.cp("GET", admin(`/calls/${otherOrgCall}/cost`))).status).toBe(404);
    expect((await h.cp("GET", admin(`/calls/up_req_${otherOrgCall}/cost`))).status).toBe(404);
    expect((await h.cp("GET", admin("/calls/req_nope/cost"))).status).toBe(404);
  });

  const groupings = ["workload", "model", "day", "workload,model,day", "model,day", ""];
  it.each(["7d", "30d", "90m", "1d"])("usage-summary over %s equals the independent sums", async (window) => {
    for (const group_by of groupings) {
      const { status, json } = await h.cp(
        "GET",
        project(`/usage-summary?window=${window}&group_by=${group_by}`),
      );
      expect(status).toBe(200);
      expect(json.window).toBe(window);
      expect(json.group_by).toEqual(
        ["workload", "model", "day"].filter((k) => group_by.split(",").includes(k)),
      );
      const expected = expectedUsageGroups(inWindow(set, json.window_start, json.window_end), json.group_by);
      expect(json.groups, `${window} ${group_by}`).toEqual(expected);
    }
  });

  it("usage-summary defaults to 7d by workload", async () => {
    const { json } = await h.cp("GET", project("/usage-summary"));
    expect(json.window).toBe("7d");
    expect(json.group_by).toEqual(["workload"]);
    expect(json.groups).toEqual(
      expectedUsageGroups(inWindow(set, json.window_start, json.window_end), ["workload"]),
    );
  });

  it.each(["30m", "6h", "24h"])("provider-health over %s equals the independent counts", async (window) => {
    const { status, json } = await h.cp("GET", project(`/provider-health?window=${window}`));
    expect(status).toBe(200);
    expect(json).toMatchObject({ project_id: h.projectId, window });
    expect({
      total_requests: json.total_requests,
      total_errors: json.total_errors,
      providers: json.providers,
    }).toEqual(expectedHealth(inWindow(set, json.window_start, json.window_end)));
  });

  it("workload-status shows observed mode, shares and errors next to the declared route", async () => {
    const { status, json } = await h.cp("GET", project("/workload-status"));
    expect(status).toBe(200);
    expect(json.window).toBe("24h");
    expect(json.workload_count).toBe(4);
    const windowed = inWindow(set, json.window_start, json.window_end);
    for (const w of json.workloads as Json[]) {
      const name = w.display_name as keyof typeof ids;
      expect(w.workload_id).toBe(ids[name]);
      expect(w).toMatchObject(expectedWorkloadStatus(windowed, ids[name]));
    }
    const byName = Object.fromEntries((json.workloads as Json[]).map((w) => [w.display_name, w]));
    expect(byName.idle).toMatchObject({
      status: "idle",
      requests: 0,
      declared: { routed: "steer", split_pct: 100 },
    });
    expect(byName.canary.declared).toEqual({ routed: "steer", split_pct: 30 });
    expect(byName.main.declared).toEqual({ routed: "none", split_pct: 0 });
    expect(byName.batch.status).toBe("degraded");
    expect(byName.canary.last_error_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/);
  });

  it("routing-status follows active_traffic_pct", async () => {
    const { json } = await h.cp("GET", project("/routing-status"));
    expect(json.workload_count).toBe(4);
    const byName = Object.fromEntries((json.workloads as Json[]).map((w) => [w.display_name, w]));
    expect(byName.main).toMatchObject({
      route_mode: "passthrough",
      active_traffic_pct: 0,
      provider_label: null,
      model: null,
    });
    expect(byName.canary).toMatchObject({
      route_mode: "gateway",
      active_traffic_pct: 30,
      provider_label: "managed",
      model: "gateway-managed",
    });
    expect(byName.idle).toMatchObject({
      route_mode: "primary",
      active_traffic_pct: 100,
      provider_label: "provider_b",
      model: "gw-pro",
    });
  });

  it("status prints a line per workload and embeds both records", async () => {
    const { json } = await h.cp("GET", project("/status?window=6h"));
    for (const name of Object.keys(ids))
      expect(json.lines.some((l: string) => l.startsWith(`${name}:`))).toBe(true);
    expect(json.lines.find((l: string) => l.startsWith("idle:"))).toContain("no traffic in 6h");
    expect(json.health.window).toBe("6h");
    const { total_requests, total_errors, providers } = json.health;
    expect({ total_requests, total_errors, providers }).toEqual(
      expectedHealth(inWindow(set, json.health.window_start, json.health.window_end)),
    );
    expect(json.routing.workload_count).toBe(4);
  });

  it("re-prices the calls a new price row covers, reports included", async () => {
    const added = await fetch(`${h.gateway.url}/operator/v1/prices`, {
      method: "POST",
      headers: { authorization: `Bearer ${operatorToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "gw-fast",
        effective_from: new Date(t0 - 5 * 1440 * minute).toISOString(),
        input_usd_per_mtok: "1.00",
        cache_write_5m_usd_per_mtok: "1.25",
        cache_write_1h_usd_per_mtok: "2.00",
        cache_read_usd_per_mtok: "0.10",
        output_usd_per_mtok: "5.00",
      }),
    });
    expect(added.status).toBe(201);
    expect(((await added.json()) as Json).repricing).toBe("queued");
    // the costing worker re-prices, on the job the control plane queued
    await h.gateway.internals.jobs.idle();
    rates = { ...rates, "gw-fast": [1000n, 1250n, 2000n, 100n, 5000n] };
    applyExpectedCosts();
    // The price starts 5 days ago: older gw-fast calls stay unpriced.
    for (const c of set.filter((x) => x.model === "gw-fast" && x.tokens)) {
      const covered = c.at.getTime() >= t0 - 5 * 1440 * minute;
      if (!covered) c.unpricedReason = "no_price";
      if (!covered) c.costNano = null;
      const { json } = await h.cp("GET", admin(`/calls/${c.requestId}/cost`));
      expect(json.pricing_status).toBe(covered ? "priced" : "unpriced");
      expect(json.unpriced_reason).toBe(covered ? null : "no_price");
    }
    const { json } = await h.cp("GET", project("/usage-summary?window=30d&group_by=workload,model,day"));
    expect(json.groups).toEqual(
      expectedUsageGroups(inWindow(set, json.window_start, json.window_end), json.group_by),
    );
  });

  it.each([
    ["/provider-health", "window=0m"],
    ["/provider-health", "window=0"],
    ["/provider-health", "window=25h"],
    ["/provider-health", "window=2d"],
    ["/provider-health", "window=1w"],
    ["/provider-health", "window=1.5h"],
    ["/status", "window=25h"],
    ["/status", "window=0h"],
    ["/workload-status", "window=25h"],
    ["/workload-status", "window=0d"],
    ["/usage-summary", "window=31d"],
    ["/usage-summary", "window=0d"],
    ["/usage-summary", "window=745h"],
    ["/usage-summary", "group_by=foo"],
    ["/usage-summary", "group_by=workload,foo"],
    ["/usage-summary", "group_by=workload&window=31d"],
    ["/usage-summary", "bogus=1"],
    ["/routing-status", "window=1h"],
  ])("%s?%s is a 400 with the control-plane error shape", async (path, query) => {
    const { status, json } = await h.cp("GET", project(`${path}?${query}`));
    expect(status).toBe(400);
    expect(json.error.code).toBe("bad_request");
    expect(typeof json.error.message).toBe("string");
  });

  it("accepts the maxima and answers 404 for another org's project", async () => {
    expect((await h.cp("GET", project("/provider-health?window=24h"))).status).toBe(200);
    expect((await h.cp("GET", project("/usage-summary?window=30d"))).status).toBe(200);
    expect((await h.cp("GET", project("/usage-summary?window=720h"))).status).toBe(200);
    expect((await h.cp("GET", admin("/projects/proj_nope/usage-summary"))).status).toBe(404);
    const other = await fetch(`${h.gateway.url}/operator/v1/orgs`, {
      method: "POST",
      headers: { authorization: `Bearer ${operatorToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "third" }),
    });
    const third = (await other.json()) as Json;
    const foreign = await h.cp("GET", project("/workload-status"), undefined, third.api_key.value);
    expect(foreign.status).toBe(404);
  });
});
