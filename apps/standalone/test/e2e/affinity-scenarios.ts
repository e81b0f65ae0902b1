import { deployment } from "@gateway/testkit";
import { request } from "undici";
import { beforeAll, describe, expect, it } from "vitest";
import { catalogKeyEnv, type Deployment, type SplitDeployment } from "./deployments.ts";
import { createTestOrg, type TestOrg } from "./scenarios.ts";
import { within } from "./traffic.ts";

const conversations = 2_000;
const turns = 5;
/** Conversations in flight at once: each sends its turns one after another, as a client does. */
const concurrency = 48;
const catalogModel = "e2e-affinity";

/** How the requests sent so far should read on their call rows (`arm_source`). */
interface Sent {
  affinity: number;
  draw: number;
}

/**
 * One small chat turn on `workload`, of conversation `c` (named by our header when even, by
 * provider B's `prompt_cache_key` when odd) or of none (null); its arm and request id.
 */
async function turn(gateway: string, org: TestOrg, workload: string, c: number | null, sent?: Sent) {
  const body: Record<string, unknown> = {
    model: "gpt-5.4-mini",
    messages: [{ role: "user", content: "hi" }],
  };
  const headers: Record<string, string> = {
    authorization: `Bearer ${org.apiKey}`,
    "content-type": "application/json",
    "x-gateway-upstream-key": "sk-upstream-e2e",
    "x-gateway-workload": workload,
  };
  if (c !== null && c % 2 === 0) headers["x-gateway-conversation"] = `conversation-${c}`;
  if (c !== null && c % 2 === 1) body.prompt_cache_key = `conversation-${c}`;
  const res = await request(`${gateway}/v1/chat/completions`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  await res.body.text();
  expect(res.statusCode).toBe(200);
  if (sent) sent[c === null ? "draw" : "affinity"]++;
  return {
    route: String(res.headers["x-gateway-route"]),
    requestId: String(res.headers["x-gateway-request-id"]),
  };
}

/** Runs `work(0..n-1)`, `concurrency` at a time. */
async function inPool(n: number, work: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

/**
 * A catalog model `id` whose deployments are the provider mocks (provider B's chat format, and
 * with `messages` provider A's too), paid with the e2e catalog key.
 */
export async function putMockCatalogModel(d: Deployment, id: string, { messages = false } = {}) {
  const deployments = [deployment("chat_completions", d.mocks.providerB.url, "gpt-5.4-nano", catalogKeyEnv)];
  if (messages)
    deployments.push(deployment("messages", d.mocks.providerA.url, "claude-haiku-5", catalogKeyEnv));
  const put = await d.cp("PUT", `/operator/v1/models/${id}`, { display_name: id, deployments });
  expect([200, 201]).toContain(put.status);
}

/**
 * The measure of conversation affinity, on every gateway of the deployment: 2,000
 * conversations of 5 turns under a 30 % route (each turn on another gateway than the last, where
 * there are two), then the route raised to 40 %; and the arm's source on captures (and, split,
 * on every call row).
 */
export function affinityScenarios(get: () => Deployment, label: string): void {
  describe("conversation affinity", () => {
    let org: TestOrg;
    const workloads: Record<string, string> = {};
    beforeAll(async () => {
      const d = get();
      org = await createTestOrg(d);
      await putMockCatalogModel(d, catalogModel);
      for (const name of ["affinity", "affinity-captured"]) {
        const project = `/orgs/${org.orgId}/projects/${org.projectId}`;
        const created = await d.cp("POST", `/customer/v1${project}/workloads`, { name }, org.apiKey);
        workloads[name] = created.json.id;
      }
      await route(d, "affinity-captured", 30, true);
    });
    const route = async (d: Deployment, name: string, pct: number, capture = false) => {
      const path = `/admin/v1/orgs/${org.orgId}/projects/${org.projectId}/workloads/${workloads[name]}/route`;
      const body = { model_id: catalogModel, route_traffic_pct: pct, capture_enabled: capture };
      expect((await d.cp("PUT", path, body, org.apiKey)).status).toBe(200);
    };

    it("keeps every turn of a conversation on one arm, 30 % of conversations routed; 40 % moves a tenth, none back", async () => {
      const d = get();
      const n = d.gateways.length;
      const sent: Sent = { affinity: 0, draw: 0 };
      await route(d, "affinity", 30);
      // every gateway routes before the first turn: an unnamed request reaches the catalog arm
      for (const g of d.gateways)
        await within(10_000, async () =>
          (await turn(g, org, "affinity", null, sent)).route === "gateway" ? true : undefined,
        );
      const started = performance.now();
      const arms: string[][] = Array.from({ length: conversations }, () => []);
      await inPool(conversations, async (c) => {
        for (let t = 0; t < turns; t++)
          arms[c]!.push((await turn(d.gateways[(c + t) % n]!, org, "affinity", c, sent)).route);
      });
      const split = arms.filter((a) => new Set(a).size !== 1).length;
      expect(split, "conversations whose turns changed arm").toBe(0);
      const at30 = arms.map((a) => a[0]!);
      const share30 = at30.filter((a) => a === "gateway").length / conversations;
      expect(Math.abs(share30 - 0.3)).toBeLessThanOrEqual(0.03);

      await route(d, "affinity", 40);
      // every gateway has the new share once one of the primary conversations moves there
      const primaries = at30.flatMap((a, c) => (a === "primary" ? [c] : [])).slice(0, 300);
      for (const g of d.gateways)
        await within(10_000, async () => {
          for (const c of primaries)
            if ((await turn(g, org, "affinity", c, sent)).route === "gateway") return true;
          return undefined;
        });
      const at40: string[] = [];
      await inPool(conversations, async (c) => {
        at40[c] = (await turn(d.gateways[c % n]!, org, "affinity", c, sent)).route;
      });
      const back = at30.filter((a, c) => a === "gateway" && at40[c] !== "gateway").length;
      expect(back, "conversations moved from the catalog arm back to primary").toBe(0);
      const moved = at30.filter((a, c) => a !== at40[c]).length / conversations;
      expect(moved).toBeGreaterThanOrEqual(0.08);
      expect(moved).toBeLessThanOrEqual(0.12);
      console.log(
        `conversation affinity (${label}): ${conversations} x ${turns} turns over ${n} gateway(s) in ` +
          `${Math.round(performance.now() - started)} ms, ${(share30 * 100).toFixed(1)} % on the catalog arm at 30 %, ` +
          `${(moved * 100).toFixed(1)} % of conversations moved at 40 %, none back`,
      );

      // the capture says how the arm was chosen, on every gateway
      for (const g of d.gateways) {
        const named = await turn(g, org, "affinity-captured", 0);
        const unnamed = await turn(g, org, "affinity-captured", null);
        for (const [call, source] of [
          [named, "affinity"],
          [unnamed, "draw"],
        ] as const) {
          const path = `/customer/v1/orgs/${org.orgId}/projects/${org.projectId}/captures/${call.requestId}`;
          const envelope = await within(
            15_000,
            async () => {
              const res = await d.cp("GET", path, undefined, org.apiKey);
              return res.status === 200 ? res.json : undefined;
            },
            100,
          );
          expect({ route: envelope.route, arm_source: envelope.arm_source }).toEqual({
            route: call.route,
            arm_source: source,
          });
        }
      }
      // and so does every call row (split: the costing worker's rows in PostgreSQL)
      if (d.kind === "split") await expectRowsBySource(d as SplitDeployment, workloads.affinity!, sent);
    }, 180_000);
  });
}

/** The workload's call rows, once all are written, hold `sent` by `arm_source`. */
async function expectRowsBySource(d: SplitDeployment, workloadId: string, sent: Sent) {
  const bySource = async () => {
    const rows = await d.sql<{ arm_source: string | null; n: number }[]>`
      select arm_source, count(*)::int as n from calls where workload_id = ${workloadId} group by arm_source`;
    return Object.fromEntries(rows.map((r) => [r.arm_source ?? "null", r.n]));
  };
  const total = sent.affinity + sent.draw;
  await within(
    60_000,
    async () => {
      const now = await bySource();
      return Object.values(now).reduce((s, v) => s + v, 0) >= total ? true : undefined;
    },
    500,
  ).catch(() => {});
  expect(await bySource()).toEqual({ affinity: sent.affinity, draw: sent.draw });
}
