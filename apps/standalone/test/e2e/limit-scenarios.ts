import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { beforeAll, expect, it } from "vitest";
import type { Deployment } from "./deployments.ts";
import { createTestOrg, type TestOrg } from "./scenarios.ts";
import { chatBody, gatewayCall, sleep, within } from "./traffic.ts";

/** The org's admin client for limits, and fresh projects to set them on. */
export function limitsAdmin(get: () => Deployment, org: () => TestOrg) {
  const admin = (path: string) => `/admin/v1/orgs/${org().orgId}${path}`;
  return {
    async newProject(slug: string) {
      const res = await get().cp("POST", admin("/projects"), { slug, name: slug }, org().apiKey);
      expect(res.status).toBe(201);
      return res.json.id as string;
    },
    async putLimits(path: string, limits: unknown) {
      const res = await get().cp("PUT", admin(`${path}/limits`), limits, org().apiKey);
      expect(res.status).toBe(200);
    },
    report: (projectId: string) =>
      get().cp("GET", admin(`/projects/${projectId}/limits-status?window=1h`), undefined, org().apiKey),
    usage: (projectId: string) =>
      get().cp("GET", admin(`/projects/${projectId}/usage-summary?window=1d`), undefined, org().apiKey),
  };
}

/** A BYO chat call in project `slug`. */
export const chatIn = (gateway: string, key: string, slug: string, n = 0) =>
  gatewayCall(gateway, key, "/v1/chat/completions", chatBody(n), { "x-gateway-project": slug });

/**
 * Limits seen from outside, on every deployment: changes reach every gateway within 2 s, the
 * gateways together let the configured requests per minute through (±5 %), and a budget stops
 * managed traffic once spent, its spend matching the usage summary to the cent.
 */
export function limitScenarios(get: () => Deployment, label: string): void {
  let org: TestOrg;
  beforeAll(async () => {
    org = await createTestOrg(get());
  });
  const limits = limitsAdmin(get, () => org);

  it("brings a limits change to every gateway within 2 s", async () => {
    const d = get();
    const projectId = await limits.newProject("propagation");
    // every gateway has read the project (and holds its entry) before the change
    for (const g of d.gateways) expect((await chatIn(g, org.apiKey, "propagation")).status).toBe(200);
    const changed = Date.now();
    await limits.putLimits(`/projects/${projectId}`, { requests_per_minute: 1 });
    const seenAfter = await Promise.all(
      d.gateways.map((g) =>
        within(
          2_000,
          async () =>
            (await chatIn(g, org.apiKey, "propagation")).status === 429 ? Date.now() - changed : undefined,
          50,
        ),
      ),
    );
    console.log(`${label}: a limits change refused calls on every gateway after ${seenAfter.join(", ")} ms`);
  });

  it("lets the gateways together through the configured requests per minute, within 5 %", async () => {
    await expectSharedRate(get(), org, label, "rpm-shared");
  }, 120_000);

  it("lets the official SDKs back off on a 429 and succeed once the window allows", async () => {
    const d = get();
    const projectId = await limits.newProject("sdk-retry");
    // 12 a minute: a request fits again every 5 s, inside the SDKs' patience (they honour
    // retry-after-ms up to 60 s)
    await limits.putLimits(`/projects/${projectId}`, { requests_per_minute: 12 });
    const gateway = d.gateways.at(-1)!;
    // Spent means a 429 whose next slot is at least 4 s away. It is taken inside the SDK's own
    // fetch, right before its first attempt: spent any earlier, a pause of the machine (CI saw
    // one of over a second) could free a slot before that attempt and let it through.
    const exhaust = () =>
      within(
        15_000,
        async () => {
          const res = await chatIn(gateway, org.apiKey, "sdk-retry");
          return res.status === 429 && Number(res.retryAfterMs) >= 4_000 ? true : undefined;
        },
        0,
      );
    const seen: number[] = [];
    const spentFirst: typeof fetch = async (input, init) => {
      if (seen.length === 0) await exhaust();
      const res = await fetch(input, init);
      seen.push(res.status);
      return res;
    };
    const headers = { "x-gateway-upstream-key": "sk-upstream-e2e", "x-gateway-project": "sdk-retry" };

    const openai = new OpenAI({
      apiKey: org.apiKey,
      baseURL: `${gateway}/v1`,
      fetch: spentFirst,
      defaultHeaders: headers,
    });
    const completion = await openai.chat.completions.create({
      model: "gpt-5.4-mini",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(completion.choices.length).toBeGreaterThan(0);
    const openaiSeen = [...seen];

    seen.length = 0;
    const anthropic = new Anthropic({
      apiKey: org.apiKey,
      baseURL: gateway,
      fetch: spentFirst,
      defaultHeaders: headers,
    });
    const message = await anthropic.messages.create({
      model: "claude-sonnet-5",
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(message.content.length).toBeGreaterThan(0);
    console.log(
      `${label}: statuses the SDKs saw: openai ${openaiSeen.join(" ")}, anthropic ${seen.join(" ")}`,
    );
    for (const statuses of [openaiSeen, seen]) {
      expect(statuses[0]).toBe(429);
      expect(statuses.at(-1)).toBe(200);
    }
  }, 60_000);

  it("stops managed calls once a budget is spent, with its spend matching the usage summary", async () => {
    const d = get();
    const projectId = await limits.newProject("budget-e2e");
    await limits.putLimits(`/projects/${projectId}`, {
      budget: { usd: "0.000001", period: "day", applies_to: "managed" },
    });
    // the responses endpoint is served with the operator's key: managed
    const responses = (g: string) =>
      fetch(`${g}/v1/responses`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${org.apiKey}`,
          "content-type": "application/json",
          "x-gateway-project": "budget-e2e",
        },
        body: JSON.stringify({ model: "gpt-5.4-mini", input: "hello" }),
      });
    const first = await responses(d.gateways[0]!);
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const spentAt = Date.now();
    // priced by the costing worker, its spend published: every gateway refuses managed calls;
    // those admitted meanwhile (one every 100 ms) are the budget's overshoot
    let overshoot = 0;
    for (const g of d.gateways) {
      const refused = await within(
        15_000,
        async () => {
          const res = await responses(g);
          const body = await res.text();
          if (res.status === 200) overshoot++;
          return res.status === 429 ? { headers: res.headers, body: JSON.parse(body) } : undefined;
        },
        100,
      );
      expect(refused.headers.get("x-should-retry")).toBe("false");
      expect(refused.body.error.code).toBe("insufficient_quota");
    }
    console.log(
      `${label}: a spent budget refused managed calls on every gateway ${Date.now() - spentAt} ms after the spending call (${overshoot} admitted meanwhile)`,
    );
    // only managed calls so far (refused ones cost nothing): the budget's spend is the project's cost
    // the refusals are recorded like any call: the report counts them once the events are in
    const project = await within(
      10_000,
      async () => {
        const report = await limits.report(projectId);
        expect(report.status).toBe(200);
        const entry = report.json.scopes.find((s: { scope: string }) => s.scope === "project");
        return entry.refused.by_limit.budget >= d.gateways.length ? entry : undefined;
      },
      100,
    );
    const usage = await limits.usage(projectId);
    const cost = usage.json.groups.reduce(
      (sum: number, g: { customer_cost_usd: number }) => sum + g.customer_cost_usd,
      0,
    );
    expect(cost).toBeGreaterThan(0);
    expect(Math.abs(Number(project.budget.spent_usd) - cost)).toBeLessThan(0.005);
    // the caller's own key is not the budget's
    for (const g of d.gateways) expect((await chatIn(g, org.apiKey, "budget-e2e")).status).toBe(200);
  }, 60_000);
}

/**
 * 600 requests a minute on a fresh project `slug`, its idle burst spent on every gateway: 6 s of
 * traffic several times that rate, spread over the gateways, lets the configured rate through
 * in total, within 5 % (the count is shared in Redis, not each gateway's own).
 */
export async function expectSharedRate(d: Deployment, org: TestOrg, label: string, slug: string) {
  const rpm = 600;
  const admin = limitsAdmin(
    () => d,
    () => org,
  );
  const projectId = await admin.newProject(slug);
  await admin.putLimits(`/projects/${projectId}`, { requests_per_minute: rpm });
  // Spend the idle burst, so that what follows is the sustained rate: 600 calls, from a few senders
  // at once (one alone on a loaded machine is barely faster than the refill), until a 429 on every
  // gateway. A gateway that counted alone meanwhile refused from its own count, not Redis's: the
  // burst may be left in Redis, and is spent again, three times at most.
  const spendBurst = async () => {
    const fallbacksBefore = d.limitsFallbacks();
    for (const g of d.gateways)
      await Promise.all(
        Array.from({ length: 4 }, () =>
          within(
            30_000,
            async () => ((await chatIn(g, org.apiKey, slug)).status === 429 ? true : undefined),
            0,
          ),
        ),
      );
    return d.limitsFallbacks() === fallbacksBefore;
  };
  for (let attempt = 0; !(await spendBurst()) && attempt < 2; attempt++);
  /** 6 s of 4 senders at about 60 a second: several times the 10 a second the limit lets through. */
  const window = async () => {
    const senders = 4;
    const durationMs = 6_000;
    let admitted = 0;
    let refused = 0;
    let other = 0;
    const fallbacksBefore = d.limitsFallbacks();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: senders }, async (_, s) => {
        for (let i = 0; performance.now() - started < durationMs; i++) {
          const g = d.gateways[(s + i) % d.gateways.length]!;
          const { status } = await chatIn(g, org.apiKey, slug, i);
          if (status === 200) admitted++;
          else if (status === 429) refused++;
          else other++;
          await sleep(50);
        }
      }),
    );
    const elapsedS = (performance.now() - started) / 1000;
    const expected = (rpm / 60) * elapsedS;
    const fellBack = d.limitsFallbacks() - fallbacksBefore;
    console.log(
      `${label}: ${admitted} calls admitted and ${refused} refused over ${elapsedS.toFixed(1)} s at ${rpm}/min ` +
        `through ${d.gateways.length} gateway(s) (expected ${expected.toFixed(1)})` +
        (fellBack > 0 ? `; Redis missed its timeout ${fellBack} time(s): counted alone meanwhile` : ""),
    );
    return { admitted, refused, other, expected, fellBack };
  };
  // A gateway that Redis does not answer within its timeout counts its share alone for a while
  // (docs/limits.md): the shared count is promised only while Redis answers. A window with such
  // a lapse (a loaded machine) does not measure it, and is measured again, three times at most.
  let measured = await window();
  for (let retry = 0; measured.fellBack > 0 && retry < 2; retry++) measured = await window();
  expect(measured.fellBack).toBe(0);
  expect(measured.other).toBe(0);
  expect(measured.refused).toBeGreaterThan(measured.admitted);
  expect(Math.abs(measured.admitted - measured.expected)).toBeLessThanOrEqual(measured.expected * 0.05);
}
