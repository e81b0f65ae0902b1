import { type MockProvider, startMockProviderB } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deployment, eventually, type Harness, type Json, putCatalogModel, startHarness } from "./harness.ts";
import {
  createRoutedWorkload,
  catalogCredentials as credentials,
  putChatCatalogModel,
  workloadCalls,
} from "./support/routed-workloads.ts";

const upstreamKey = "sk-caller-routing-9d2e";

function chat(h: Harness, workload: string, body: object = {}) {
  return fetch(`${h.gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${h.apiKey}`,
      "x-gateway-upstream-key": upstreamKey,
      "x-gateway-workload": workload,
      "content-type": "application/json",
    },
    body: JSON.stringify({ model: "gpt-5.4-mini", messages: [{ role: "user", content: "hi" }], ...body }),
  });
}

describe("workload routing: the traffic split", () => {
  let h: Harness;
  let catalogB: MockProvider;
  beforeAll(async () => {
    h = await startHarness({ credentials });
    catalogB = await startMockProviderB();
    await putCatalogModel(h, "canary-chat", {
      display_name: "Canary chat",
      deployments: [
        deployment("chat_completions", catalogB.url, "gpt-5.4-nano", "GATEWAY_UPSTREAM_KEY_CATALOG_B"),
      ],
    });
  });
  afterAll(async () => {
    await h.close();
    await catalogB.close();
  });

  it("moves 30% ± 3 points of 2,000 requests, and headers, captures and call rows agree one by one", async () => {
    const workloadId = await createRoutedWorkload(h, "split", "canary-chat", 30);
    const total = 2000;
    const seen = new Map<string, { route: string; mode: string; model: string }>();
    for (let batch = 0; batch < total / 25; batch++) {
      await Promise.all(
        Array.from({ length: 25 }, async (_, i) => {
          const res = await chat(h, "split", { messages: [{ role: "user", content: `n${batch * 25 + i}` }] });
          expect(res.status).toBe(200);
          await res.text();
          seen.set(res.headers.get("x-gateway-request-id")!, {
            route: res.headers.get("x-gateway-route")!,
            mode: res.headers.get("x-gateway-mode")!,
            model: res.headers.get("x-gateway-effective-model")!,
          });
        }),
      );
    }
    const routed = [...seen.values()].filter((s) => s.route === "gateway").length;
    const share = routed / total;
    console.log(
      `traffic split: ${routed}/${total} routed (${(share * 100).toFixed(1)}%) at route_traffic_pct 30`,
    );
    expect(Math.abs(share - 0.3)).toBeLessThanOrEqual(0.03);
    for (const s of seen.values()) {
      if (s.route === "gateway")
        expect(s).toEqual({ route: "gateway", mode: "managed", model: "canary-chat" });
      else expect(s).toEqual({ route: "primary", mode: "byo", model: "gpt-5.4-mini" });
    }
    expect(catalogB.requests).toHaveLength(routed);
    expect(h.providerB.requests).toHaveLength(total - routed);
    for (const r of catalogB.requests) expect(JSON.parse(r.body.toString()).model).toBe("gpt-5.4-nano");

    const rows = await workloadCalls(h, workloadId, total);
    for (const row of rows) {
      const header = seen.get(row.requestId)!;
      expect({ route: row.route, mode: row.mode, model: row.servedModel }).toEqual(header);
      expect(row.requestedModel).toBe("gpt-5.4-mini");
    }

    const captured = await eventually(async () => {
      const items = new Map<string, Json>();
      let cursor: string | null = null;
      do {
        const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
        const page = await h.cp(
          "GET",
          `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads/${workloadId}/captures?limit=100${query}`,
        );
        for (const item of page.json.captures) items.set(item.request_id, item);
        cursor = page.json.cursor;
      } while (cursor);
      console.log("captures listed", items.size);
      return items.size === total ? items : undefined;
    }, 10_000);
    expect(captured.size).toBe(total);
    // Every routed capture, and a sample of the rest, read back whole.
    const toRead = [...seen.entries()].filter(([, s], i) => s.route === "gateway" || i % 10 === 0);
    for (const [requestId, header] of toRead) {
      const envelope = (
        await h.cp("GET", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/captures/${requestId}`)
      ).json;
      expect({ route: envelope.route, mode: envelope.mode, model: envelope.served_model }).toEqual(header);
      expect(envelope.requested_model).toBe("gpt-5.4-mini");
    }
  });
});

describe("workload routing: recovery when the routed arm fails", () => {
  let h: Harness;
  const arms: MockProvider[] = [];
  beforeAll(async () => {
    h = await startHarness({ credentials, env: { GATEWAY_FIRST_BYTE_TIMEOUT_MS: "400" } });
    const faults = {
      "arm-5xx": { status: 500 },
      "arm-reset": { resetAfterFrames: 0 },
      "arm-slow": { firstByteDelayMs: 1500 },
      "arm-midstream": { resetAfterFrames: 2 },
    };
    for (const [id, forcedFaults] of Object.entries(faults)) {
      const arm = await startMockProviderB({ forcedFaults });
      arms.push(arm);
      await putChatCatalogModel(h, id, arm.url);
    }
  });
  afterAll(async () => {
    await h.close();
    for (const arm of arms) await arm.close();
  });

  it.each([
    ["a 5xx", "arm-5xx", "error"],
    ["a reset before the first byte", "arm-reset", "error"],
    ["a first-byte timeout", "arm-slow", "timeout"],
  ])("%s: every request completes on the original model, labelled fallback", async (_name, armId, reason) => {
    const workloadId = await createRoutedWorkload(h, `w-${armId}`, armId, 100);
    const before = h.providerB.requests.length;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await chat(h, `w-${armId}`, { stream: i % 2 === 1 });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-gateway-route")).toBe("fallback");
      expect(res.headers.get("x-gateway-mode")).toBe("byo");
      expect(res.headers.get("x-gateway-effective-model")).toBe("gpt-5.4-mini");
      const text = await res.text();
      expect(text).not.toContain('"error"');
      ids.push(res.headers.get("x-gateway-request-id")!);
    }
    const fallbackCalls = h.providerB.requests.slice(before);
    expect(fallbackCalls).toHaveLength(5);
    for (const r of fallbackCalls) {
      expect(r.headers.authorization).toBe(`Bearer ${upstreamKey}`);
      expect(JSON.parse(r.body.toString()).model).toBe("gpt-5.4-mini");
    }
    const rows = await workloadCalls(h, workloadId, 5);
    for (const row of rows)
      expect(row).toMatchObject({ route: "fallback", fallbackReason: reason, mode: "byo", status: 200 });
  });

  it("a failure after the first byte ends the stream with an error event, captured as truncated", async () => {
    const workloadId = await createRoutedWorkload(h, "w-midstream", "arm-midstream", 100);
    const res = await chat(h, "w-midstream", { stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gateway-route")).toBe("gateway");
    const text = await res.text();
    expect(text.trimEnd().split("\n\n").at(-1)).toMatch(/^data: \{"error":/);
    const requestId = res.headers.get("x-gateway-request-id")!;
    const envelope = await h.capture(requestId);
    expect(envelope).toMatchObject({
      stream_outcome: "truncated",
      route: "gateway",
      served_model: "arm-midstream",
    });
    const [row] = await workloadCalls(h, workloadId, 1);
    expect(row).toMatchObject({ route: "gateway", streamOutcome: "truncated" });
  });

  it("a route whose model cannot be served falls back at once", async () => {
    await putCatalogModel(h, "withdrawn", {
      display_name: "Withdrawn",
      deployments: [
        deployment("chat_completions", arms[0]!.url, "gpt-5.4-nano", "GATEWAY_UPSTREAM_KEY_CATALOG_B"),
      ],
    });
    const workloadId = await createRoutedWorkload(h, "w-withdrawn", "withdrawn", 100);
    await putCatalogModel(h, "withdrawn", { display_name: "Withdrawn", active: false, deployments: [] });
    const res = await chat(h, "w-withdrawn");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-gateway-route")).toBe("fallback");
    const [row] = await workloadCalls(h, workloadId, 1);
    expect(row).toMatchObject({ route: "fallback", fallbackReason: "error" });
  });
});
