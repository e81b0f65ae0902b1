import type { IncomingHttpHeaders } from "node:http";
import { configKeys, configReader, createInProcessCache } from "@gateway/cache";
import { type EndpointSpec, endpointSpecs } from "@gateway/providers";
import { describe, expect, it } from "vitest";
import { conversationOf, sharePoint } from "../src/conversation.ts";
import { type PlanContext, planCall } from "../src/plan.ts";
import { readRequestJson } from "../src/request-json.ts";

const cache = createInProcessCache();
await cache.set(configKeys.catalogModel("canary"), {
  id: "canary",
  displayName: "canary",
  active: true,
  created: 0,
  deployments: (["chat_completions", "messages"] as const).map((wireFormat) => ({
    id: `dep_${wireFormat}`,
    providerLabel: wireFormat === "messages" ? ("provider_a" as const) : ("provider_b" as const),
    wireFormat,
    baseUrl: "http://127.0.0.1:9",
    upstreamModel: "small",
    credentialEnv: "GATEWAY_UPSTREAM_KEY_CANARY",
    priority: 0,
  })),
});

/** The arm a BYO request gets under a route of `pct` % to `canary`, and how it was chosen. */
async function arm(
  pct: number,
  body: object,
  headers: IncomingHttpHeaders = {},
  { spec = endpointSpecs.chat_completions as EndpointSpec, workloadId = "usp_a", draw = 0.5 } = {},
) {
  const ctx: PlanContext = {
    config: configReader(cache),
    credentials: () => "sk-operator",
    providerUrls: { provider_a: "http://127.0.0.1:9", provider_b: "http://127.0.0.1:9" },
    responsesKeyEnv: "GATEWAY_PROVIDER_B_MANAGED_KEY",
    random: () => draw,
  };
  const bytes = Buffer.from(JSON.stringify({ model: "big", messages: [], ...body }));
  const result = await planCall(ctx, {
    spec,
    request: readRequestJson(bytes)!,
    body: bytes,
    headers,
    upstreamKey: "sk-caller",
    workload: {
      id: workloadId,
      projectId: "proj",
      name: "w",
      captureEnabled: false,
      captureSampleRate: 0,
      routeModelId: "canary",
      routeTrafficPct: pct,
    },
  });
  if (!result.ok) throw new Error(result.message);
  return { route: result.plan.primary.route, source: result.plan.armSource };
}

describe("the conversation a request names", () => {
  const chat = "chat_completions";
  it("is our header first, then the coding agents' session headers, then the body", () => {
    const body = { prompt_cache_key: "pck", user: "u" };
    expect(conversationOf({ "x-gateway-conversation": "ours", session_id: "codex" }, body, chat)).toBe(
      "ours",
    );
    expect(conversationOf({ "x-claude-code-session-id": "cc", session_id: "codex" }, body, chat)).toBe("cc");
    expect(conversationOf({ session_id: "codex" }, body, chat)).toBe("codex");
    expect(conversationOf({}, body, chat)).toBe("pck");
    expect(conversationOf({}, { user: "u" }, chat)).toBe("u");
    expect(conversationOf({}, { prompt_cache_key: "", user: "u" }, chat)).toBe("u");
  });

  it("is provider A's metadata.user_id on the messages format, and only there", () => {
    const body = { metadata: { user_id: "user_x_session_1" }, user: "u" };
    expect(conversationOf({}, body, "messages")).toBe("user_x_session_1");
    expect(conversationOf({}, { user: "u", prompt_cache_key: "k" }, "messages")).toBeNull();
    expect(conversationOf({}, { metadata: { user_id: "m" } }, chat)).toBeNull();
    expect(conversationOf({}, { metadata: { user_id: 7 } }, "messages")).toBeNull();
  });

  it("is none when nothing names one", () => {
    expect(conversationOf({}, {}, chat)).toBeNull();
    expect(conversationOf({ "x-gateway-conversation": "" }, {}, chat)).toBeNull();
  });
});

describe("the arm of a conversation", () => {
  const conversations = Array.from({ length: 20_000 }, (_, i) => `conv-${i}`);

  it("is a point in [0, 1) spread evenly over nearby names, and another for another workload or model", () => {
    const points = conversations.map((c) => sharePoint("usp_a", "canary", c));
    for (const p of points) expect(p >= 0 && p < 1).toBe(true);
    const tenths = Array.from(
      { length: 10 },
      (_, t) => points.filter((p) => Math.floor(p * 10) === t).length,
    );
    // 2,000 a tenth expected; 4 standard deviations is 170
    for (const n of tenths) expect(Math.abs(n - 2000)).toBeLessThan(170);
    const elsewhere = (w: string, m: string) =>
      conversations.filter((c, i) => sharePoint(w, m, c) < 0.3 === points[i]! < 0.3).length;
    // independent splits agree on 0.3² + 0.7² = 58 % of conversations; the same split on all
    expect(elsewhere("usp_b", "canary") / conversations.length).toBeCloseTo(0.58, 1);
    expect(elsewhere("usp_a", "canary-2") / conversations.length).toBeCloseTo(0.58, 1);
  });

  it("keeps every request of a conversation on one arm whatever the draw says, and says it came from affinity", async () => {
    for (const c of conversations.slice(0, 50)) {
      const turns = await Promise.all(
        [0, 0.5, 0.99].map((draw) => arm(30, { prompt_cache_key: c }, {}, { draw })),
      );
      expect(new Set(turns.map((t) => t.route)).size).toBe(1);
      expect(turns[0]!.source).toBe("affinity");
      const expected = sharePoint("usp_a", "canary", c) < 0.3 ? "gateway" : "primary";
      expect(turns[0]!.route).toBe(expected);
    }
  });

  it("moves only conversations from primary to the catalog arm when the share rises: those in [0.3, 0.4)", async () => {
    const sample = conversations.slice(0, 2_000);
    const at = (pct: number) =>
      Promise.all(sample.map((c) => arm(pct, {}, { "x-gateway-conversation": c }).then((a) => a.route)));
    const [at30, at40] = [await at(30), await at(40)];
    const moved = sample.filter((_, i) => at30[i] !== at40[i]);
    for (const [i] of sample.entries()) if (at30[i] === "gateway") expect(at40[i]).toBe("gateway");
    for (const c of moved) expect(sharePoint("usp_a", "canary", c)).toBeGreaterThanOrEqual(0.3);
    for (const c of moved) expect(sharePoint("usp_a", "canary", c)).toBeLessThan(0.4);
    // a tenth of all conversations expected (a seventh of the primary ones): 200 of 2,000
    expect(Math.abs(moved.length / sample.length - 0.1)).toBeLessThan(0.02);
  });

  it("is drawn on its own when the request names no conversation, and says so", async () => {
    expect(await arm(30, {}, {}, { draw: 0.29 })).toEqual({ route: "gateway", source: "draw" });
    expect(await arm(30, {}, {}, { draw: 0.3 })).toEqual({ route: "primary", source: "draw" });
  });

  it("reads metadata.user_id on the messages endpoint", async () => {
    const spec = endpointSpecs.messages;
    const named = conversations.find((c) => sharePoint("usp_a", "canary", c) < 0.3)!;
    const got = await arm(30, { metadata: { user_id: named } }, {}, { spec, draw: 0.99 });
    expect(got).toEqual({ route: "gateway", source: "affinity" });
  });

  it("is not chosen at all when the workload has no route in effect", async () => {
    expect(await arm(0, { prompt_cache_key: "c" })).toEqual({ route: "primary", source: undefined });
  });
});
