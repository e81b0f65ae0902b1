import { type MockProvider, startMockProviderB } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./harness.ts";
import {
  createRoutedWorkload,
  catalogCredentials as credentials,
  putChatCatalogModel,
  workloadCalls,
} from "./support/routed-workloads.ts";

/** A BYO chat call on `workload`; returns the arm it was served on and its request id. */
async function turn(h: Harness, workload: string, headers: Record<string, string>, body: object = {}) {
  const res = await fetch(`${h.gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${h.apiKey}`,
      "x-gateway-upstream-key": "sk-caller-affinity",
      "x-gateway-workload": workload,
      ...headers,
    },
    body: JSON.stringify({ model: "gpt-5.4-mini", messages: [{ role: "user", content: "hi" }], ...body }),
  });
  expect(res.status).toBe(200);
  await res.text();
  return { route: res.headers.get("x-gateway-route")!, requestId: res.headers.get("x-gateway-request-id")! };
}

describe("workload routing: conversation affinity", () => {
  let h: Harness;
  let catalog: MockProvider;
  let failing: MockProvider;
  beforeAll(async () => {
    h = await startHarness({ credentials });
    catalog = await startMockProviderB();
    failing = await startMockProviderB({ forcedFaults: { status: 500 } });
    await putChatCatalogModel(h, "affinity-chat", catalog.url);
    await putChatCatalogModel(h, "arm-down", failing.url);
  });
  afterAll(async () => {
    await h.close();
    await catalog.close();
    await failing.close();
  });

  it("keeps each conversation on one arm, and the capture and the call row say the arm came from affinity or a draw", async () => {
    const workloadId = await createRoutedWorkload(h, "affinity", "affinity-chat", 50);
    const named = ["x-gateway-conversation", "x-claude-code-session-id", "session_id"];
    const arms = new Map<string, Set<string>>();
    const ids: string[] = [];
    for (let c = 0; c < 40; c++) {
      for (let t = 0; t < 3; t++) {
        // the same conversation named by our header, a client's session header, or the body
        const how = c % 4;
        const conversation = `conversation-${c}`;
        const r =
          how < 3
            ? await turn(h, "affinity", { [named[how]!]: conversation })
            : await turn(
                h,
                "affinity",
                {},
                { prompt_cache_key: conversation, messages: [{ role: "user", content: `turn ${t}` }] },
              );
        ids.push(r.requestId);
        arms.set(conversation, (arms.get(conversation) ?? new Set()).add(r.route));
      }
    }
    for (const [conversation, seen] of arms) expect([...seen], conversation).toHaveLength(1);
    const onCatalog = [...arms.values()].filter((s) => s.has("gateway")).length;
    // both arms in use (40 conversations at 50 %: either arm empty has odds of 2 in 10^12)
    expect(onCatalog).toBeGreaterThan(0);
    expect(onCatalog).toBeLessThan(40);
    const drawn = await turn(h, "affinity", {});
    const rows = await workloadCalls(h, workloadId, ids.length + 1);
    for (const row of rows)
      expect(row.armSource).toBe(row.requestId === drawn.requestId ? "draw" : "affinity");
    expect((await h.capture(ids[0]!)).arm_source).toBe("affinity");
    expect((await h.capture(drawn.requestId)).arm_source).toBe("draw");

    const created = await h.cp("POST", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`, {
      name: "no-route",
    });
    const unrouted: string = created.json.id;
    const plain = await turn(h, "no-route", { "x-gateway-conversation": "conversation-0" });
    const [row] = await workloadCalls(h, unrouted, 1);
    expect(row!.armSource).toBeNull();
    expect((await h.capture(plain.requestId)).arm_source).toBeUndefined();
    // our header is ours: never sent upstream
    for (const r of [...catalog.requests, ...h.providerB.requests])
      expect(r.headers["x-gateway-conversation"]).toBeUndefined();
  });

  it("falls back for a request whose arm fails before its first byte, and tries the arm again on the next", async () => {
    const workloadId = await createRoutedWorkload(h, "arm-down", "arm-down", 100);
    const before = failing.requests.length;
    for (let t = 0; t < 3; t++) {
      const r = await turn(h, "arm-down", { "x-gateway-conversation": "conversation-down" });
      expect(r.route).toBe("fallback");
      expect(failing.requests.length).toBe(before + t + 1);
    }
    const rows = await workloadCalls(h, workloadId, 3);
    for (const row of rows) expect(row).toMatchObject({ route: "fallback", armSource: "affinity" });
  });
});
