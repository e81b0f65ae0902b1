import { callsTopic } from "@gateway/contracts";
import { type Scrape, scrape } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness, untilCosted } from "./harness.ts";

const upstreamKey = "sk-upstream-metrics-check";

/** A BYO chat-completions call through the gateway; resolves with status and request id. */
async function call(h: Harness, { stream = false, key = h.apiKey } = {}) {
  const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "x-gateway-upstream-key": upstreamKey,
      "content-type": "application/json",
    },
    body: JSON.stringify({ model: "gpt-5.4-mini", stream, messages: [{ role: "user", content: "hi" }] }),
  });
  await res.arrayBuffer();
  return { status: res.status, requestId: res.headers.get("x-gateway-request-id")! };
}

describe("/metrics on the standalone process (every app's metrics on its one port)", () => {
  let h: Harness;
  let metrics: Scrape;
  const requestIds: string[] = [];
  beforeAll(async () => {
    h = await startHarness();
    const json = await call(h);
    const streamed = await call(h, { stream: true });
    expect([json.status, streamed.status]).toEqual([200, 200]);
    requestIds.push(json.requestId, streamed.requestId);
    expect((await call(h, { key: "gw-not-a-key" })).status).toBe(401);
    await untilCosted(h.gateway, [json.requestId, streamed.requestId]);
    metrics = await scrape(h.gateway.url);
  }, 60_000);
  afterAll(() => h?.close());

  it("counts the gateway's calls by endpoint, mode, route, provider and status class", () => {
    const byo = { endpoint: "chat_completions", mode: "byo", route: "primary", provider: "provider_b" };
    expect(metrics.value("gateway_requests_total", { ...byo, status_class: "2xx" })).toBe(2);
    expect(metrics.value("gateway_requests_total", { status_class: "4xx" })).toBe(1);
    expect(metrics.value("gateway_request_duration_seconds_count", { stream: "true" })).toBe(1);
    expect(metrics.value("gateway_request_duration_seconds_count", { stream: "false" })).toBe(2);
    // the refused call never reached an upstream
    expect(metrics.value("gateway_upstream_first_byte_seconds_count", { provider: "provider_b" })).toBe(2);
    expect(metrics.value("gateway_stream_outcomes_total", { outcome: "complete" })).toBe(1);
    expect(metrics.value("gateway_in_flight_requests")).toBe(0);
    expect(metrics.value("gateway_event_spool_bytes")).toBe(0);
    expect(metrics.value("gateway_event_publish_failures_total")).toBe(0);
    // three calls, each resolving at least its key
    expect(metrics.value("gateway_config_cache_lookups_total", { result: "local" })).toBeGreaterThanOrEqual(
      3,
    );
    expect(metrics.value("gateway_config_cache_lookups_total", { result: "unavailable" })).toBe(0);
  });

  it("reports the consumers, the costing backlog and the control plane", () => {
    // one consumer stores the calls and their captures in the all-in-one process
    const labels = { group: "costing-worker", topic: callsTopic };
    expect(metrics.value("consumer_events_total", { ...labels, result: "handled" })).toBe(2);
    expect(metrics.value("consumer_events_total", { ...labels, result: "dead_lettered" })).toBe(0);
    expect(metrics.value("consumer_handler_failures_total", labels)).toBe(0);
    expect(metrics.value("consumer_lag_events", labels)).toBe(0);
    expect(metrics.value("consumer_events_total", { group: "capture-writer", topic: callsTopic })).toBe(
      undefined,
    );
    expect(metrics.value("costing_calls_awaiting_price")).toBe(0);
    expect(metrics.value("costing_jobs_waiting", { job: "costing.price-calls" })).toBe(0);
    expect(metrics.value("costing_job_failures_total", { job: "costing.price-calls" })).toBe(0);
    // the harness created the default project: counted under the route's pattern
    expect(
      metrics.value("control_plane_requests_total", {
        method: "POST",
        route: "/admin/v1/orgs/:org_id/projects/default",
        status_class: "2xx",
      }),
    ).toBe(1);
    expect(metrics.value("app_ready", { app: "gateway" })).toBe(1);
    // Node's own process metrics
    expect(metrics.value("process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(metrics.families.has("nodejs_eventloop_lag_p99_seconds")).toBe(true);
  });

  it("has no label holding a key, an id or anything else a caller chose", () => {
    const secrets = [
      h.apiKey,
      upstreamKey,
      "gw-not-a-key",
      h.orgId,
      h.projectId,
      "gpt-5.4-mini",
      ...requestIds,
    ];
    const values = metrics.samples.flatMap((s) => Object.values(s.labels));
    for (const secret of secrets) expect(values.filter((v) => v.includes(secret))).toEqual([]);
  });
});

describe("GATEWAY_METRICS=false", () => {
  it("turns /metrics off", async () => {
    const h = await startHarness({ env: { GATEWAY_METRICS: "false" } });
    try {
      const res = await fetch(`${h.gateway.url}/metrics`);
      await res.arrayBuffer();
      expect(res.status).toBe(404);
      expect((await call(h)).status).toBe(200);
    } finally {
      await h.close();
    }
  });
});
