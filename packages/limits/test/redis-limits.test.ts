import { type ChildProcess, spawn } from "node:child_process";
import { silentLogger } from "@gateway/contracts";
import { freePort } from "@gateway/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisLimits } from "../src/index.ts";
import type { AdmitRequest, LimitStore, ScopeLimits } from "../src/limit-store.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";

let n = 0;
const call = (scopes: ScopeLimits[], managed = true): AdmitRequest => ({
  requestId: `req_${++n}`,
  scopes,
  managed,
});
const until = async (probe: () => boolean, ms: number) => {
  const deadline = Date.now() + ms;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

// A Redis of the test's own (redis-server from Debian, installed by infra/redis.sh), so that it
// can be stopped without disturbing the shared one.
describe.skipIf(!engines)("redis limits (GATEWAY_TEST_ENGINES=1)", () => {
  let port: number;
  let server: ChildProcess | null = null;
  const stores: LimitStore[] = [];
  let ns = 0;
  /** `replicas` gateways sharing one namespace. */
  const replicasOf = async (count: number) => {
    ns++;
    const replicas = Array.from({ length: count }, (_, i) => {
      const store = createRedisLimits({
        url: `redis://127.0.0.1:${port}`,
        log: silentLogger,
        timeoutMs: 200,
        namespace: `test${ns}`,
        instanceId: `replica-${i}`,
        heartbeatMs: 200,
      });
      stores.push(store);
      return store;
    });
    await until(() => replicas.every((r) => r.counting() === "shared"), 5_000);
    return replicas;
  };

  beforeAll(async () => {
    port = await freePort();
    server = spawn("redis-server", ["--bind", "127.0.0.1", "--port", String(port), "--save", ""], {
      stdio: "ignore",
    });
    await replicasOf(1);
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    server?.kill("SIGKILL");
  });

  it("lets two replicas together admit exactly the requests per minute, and no more", async () => {
    const [a, b] = await replicasOf(2);
    const key: ScopeLimits = { scope: "api_key", id: "key_1", limits: { rpm: 50 } };
    const answers = await Promise.all(
      Array.from({ length: 120 }, (_, i) => (i % 2 ? a! : b!).admit(call([key]))),
    );
    expect(answers.filter((x) => x.ok)).toHaveLength(50);
    const refused = answers.find((x) => !x.ok);
    expect(refused).toMatchObject({
      ok: false,
      refusal: { scope: "api_key", scopeId: "key_1", limit: "requests_per_minute", value: 50 },
    });
    if (!refused || refused.ok) throw new Error("none refused");
    // the next request fits in 60 s / 50 = 1.2 s at most
    expect(refused.refusal.retryAfterMs).toBeGreaterThan(0);
    expect(refused.refusal.retryAfterMs).toBeLessThanOrEqual(1_200);
    expect(await a!.use([key])).toEqual([
      { scope: "api_key", id: "key_1", requests: 50, tokens: 0, concurrent: 0 },
    ]);
  });

  it("takes nothing from a scope when another of the call's scopes refuses it", async () => {
    const [a] = await replicasOf(1);
    const key: ScopeLimits = { scope: "api_key", id: "key_1", limits: { rpm: 100 } };
    const project: ScopeLimits = { scope: "project", id: "proj_1", limits: { rpm: 5 } };
    for (let i = 0; i < 20; i++) await a!.admit(call([key, project]));
    expect(await a!.use([key, project])).toMatchObject([{ requests: 5 }, { requests: 5 }]);
  });

  it("shares slots in flight across replicas and spends tokens once calls end", async () => {
    const [a, b] = await replicasOf(2);
    const workload: ScopeLimits = { scope: "workload", id: "wl_1", limits: { concurrent: 2, tpm: 1_000 } };
    const first = await a!.admit(call([workload]));
    const second = await b!.admit(call([workload]));
    expect(await a!.admit(call([workload]))).toMatchObject({
      ok: false,
      refusal: { limit: "max_concurrent" },
    });
    if (!first.ok || !second.ok) throw new Error("refused");
    a!.settle(first.lease, 600);
    b!.settle(second.lease, 600);
    await new Promise((r) => setTimeout(r, 100));
    // 1,200 tokens in a 1,000-token bucket: in debt, refused for about 12 s
    const refused = await b!.admit(call([workload]));
    expect(refused).toMatchObject({ ok: false, refusal: { limit: "tokens_per_minute" } });
    if (refused.ok) throw new Error("admitted");
    expect(refused.refusal.retryAfterMs).toBeGreaterThan(11_000);
    const [use] = await a!.use([workload]);
    expect(use?.concurrent).toBe(0);
    // 1,200 spent, less what refilled since (1,000 a minute)
    expect(use?.tokens).toBeGreaterThan(1_190);
    expect(use?.tokens).toBeLessThanOrEqual(1_200);
  });

  it("refuses a budget once the published spend reaches it, and never moves spend back", async () => {
    const [a, b] = await replicasOf(2);
    const budget = { micros: 2_000_000, period: "month", appliesTo: "all" } as const;
    const project: ScopeLimits = { scope: "project", id: "proj_b", limits: { budget } };
    const periodStart = `${new Date().toISOString().slice(0, 8)}01`;
    const spent = (micros: number) => ({
      scope: "project" as const,
      scopeId: "proj_b",
      period: "month" as const,
      periodStart,
      managedMicros: micros,
      allMicros: micros,
    });
    await a!.publishSpend([spent(1_999_999)]);
    expect((await b!.admit(call([project], false))).ok).toBe(true);
    await a!.publishSpend([spent(2_000_000)]);
    expect(await b!.admit(call([project], false))).toMatchObject({
      ok: false,
      refusal: { limit: "budget", value: 2_000_000 },
    });
    await b!.publishSpend([spent(10)]);
    expect((await a!.admit(call([project], false))).ok).toBe(false);
  });

  it("counts each replica's share locally while Redis is away, from spent buckets, within the timeout", async () => {
    const [a] = await replicasOf(2);
    await new Promise((r) => setTimeout(r, 500)); // both heartbeats seen: 2 replicas
    // this replica's share: 1,200 / 2 = 600 a minute, one every 100 ms, and no burst
    const key: ScopeLimits = { scope: "api_key", id: "key_outage", limits: { rpm: 1_200 } };
    server?.kill("SIGSTOP");
    try {
      const started = Date.now();
      const first = await a!.admit(call([key]));
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(a!.counting()).toBe("local_fallback");
      // it cannot know what the other replica took: its buckets start spent
      expect(first).toMatchObject({ ok: false, refusal: { limit: "requests_per_minute", value: 1_200 } });
      if (first.ok) throw new Error("admitted");
      expect(first.refusal.retryAfterMs).toBeGreaterThan(0);
      expect(first.refusal.retryAfterMs).toBeLessThanOrEqual(100);
      await new Promise((r) => setTimeout(r, 450));
      let admitted = 0;
      for (let i = 0; i < 60; i++) if ((await a!.admit(call([key]))).ok) admitted++;
      // about 450 ms of the share's rate (4-5), never a burst
      expect(admitted).toBeGreaterThanOrEqual(3);
      expect(admitted).toBeLessThanOrEqual(6);
    } finally {
      server?.kill("SIGCONT");
    }
    await new Promise((r) => setTimeout(r, 1_200));
    await a!.admit(call([{ scope: "api_key", id: "other", limits: { rpm: 1_000 } }]));
    expect(a!.counting()).toBe("shared");
  });
});
