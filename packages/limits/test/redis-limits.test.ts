import { type ChildProcess, spawn } from "node:child_process";
import { silentLogger } from "@gateway/contracts";
import { eventually, freePort } from "@gateway/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AdmitRequest, LimitStore, ScopeLimits } from "../src/limit-store.ts";
import { createRedisLimits } from "../src/redis-limits.ts";

const engines = process.env.GATEWAY_TEST_ENGINES === "1";

let n = 0;
const call = (scopes: ScopeLimits[], managed = true): AdmitRequest => ({
  requestId: `req_${++n}`,
  scopes,
  managed,
});

// A Redis of the test's own (redis-server from Debian, installed by infra/redis.sh), so that it
// can be stopped without disturbing the shared one.
describe.skipIf(!engines)("redis limits (GATEWAY_TEST_ENGINES=1)", () => {
  let port: number;
  let server: ChildProcess | null = null;
  const stores: LimitStore[] = [];
  let ns = 0;
  /** `replicas` gateways sharing one namespace. */
  const replicasOf = async (count: number, leaseMs?: number) => {
    ns++;
    const replicas = Array.from({ length: count }, (_, i) => {
      const store = createRedisLimits({
        url: `redis://127.0.0.1:${port}`,
        log: silentLogger,
        timeoutMs: 200,
        namespace: `test${ns}`,
        instanceId: `replica-${i}`,
        heartbeatMs: 200,
        leaseMs,
      });
      stores.push(store);
      return store;
    });
    await eventually(() => replicas.every((r) => r.counting() === "shared"), 5_000);
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
    // both under 100: asked of Redis call by call, nothing held by the replica
    const key: ScopeLimits = { scope: "api_key", id: "key_1", limits: { rpm: 60 } };
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

  it("charges the requests a replica admitted alone to the shared bucket once Redis answers again", async () => {
    const [a] = await replicasOf(1);
    // 600 a minute: one every 100 ms
    const key: ScopeLimits = { scope: "project", id: "proj_debt", limits: { rpm: 600 } };
    while ((await a!.admit(call([key]))).ok);
    const spentAt = Date.now();
    let admitted = 0;
    let alone = 0;
    server?.kill("SIGSTOP");
    try {
      // times out: counted alone from here, from a spent bucket (another scope's call, since the
      // timed-out one runs in Redis once it wakes, taking what it asked for unbeknown)
      await a!.admit(call([{ scope: "project", id: "proj_other", limits: { rpm: 600 } }]));
      expect(a!.counting()).toBe("local_fallback");
      expect((await a!.admit(call([key]))).ok).toBe(false); // first seen alone: spent
      await new Promise((r) => setTimeout(r, 600));
      while ((await a!.admit(call([key]))).ok) alone++;
    } finally {
      server?.kill("SIGCONT");
    }
    await new Promise((r) => setTimeout(r, 1_200));
    // Redis's bucket refilled meanwhile as if nothing were taken: only the debt keeps the count
    while ((await a!.admit(call([key]))).ok) admitted++;
    expect(a!.counting()).toBe("shared");
    const refilled = (Date.now() - spentAt) / 100;
    expect(alone).toBeGreaterThanOrEqual(3);
    expect(admitted + alone).toBeLessThanOrEqual(refilled + 1);
    expect(admitted + alone).toBeGreaterThanOrEqual(refilled - 3);
  });

  describe("what a replica holds of a large limit (1 % of it at most)", () => {
    const admitted = (answers: { ok: boolean }[]) => answers.filter((x) => x.ok).length;

    it("admits the calls its held requests cover without asking Redis, and no more", async () => {
      const [a] = await replicasOf(1);
      // 10,000 a minute: Redis hands the replica up to 100 requests beyond the call's own
      const key: ScopeLimits = { scope: "api_key", id: "key_held", limits: { rpm: 10_000 } };
      expect((await a!.admit(call([key]))).ok).toBe(true);
      server?.kill("SIGSTOP");
      try {
        const held = [];
        for (let i = 0; i < 100; i++) held.push(await a!.admit(call([key])));
        expect(admitted(held)).toBe(100);
        // none of those waited on the stopped Redis
        expect(a!.counting()).toBe("shared");
        // the 102nd call needs Redis: it waits the timeout, then counts locally from a spent bucket
        expect((await a!.admit(call([key]))).ok).toBe(false);
        expect(a!.counting()).toBe("local_fallback");
      } finally {
        server?.kill("SIGCONT");
      }
    });

    it("lets replicas together admit a burst up to the limit, never past it", async () => {
      const [a, b] = await replicasOf(2);
      const key: ScopeLimits = { scope: "api_key", id: "key_burst", limits: { rpm: 1_000 } };
      // every call of a replica's burst goes in one script: what one call is granted beyond its
      // own serves the next ones, so little is left held when the bucket is empty
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 1_500 }, (_, i) => (i % 2 ? a! : b!).admit(call([key]))),
      );
      // the bucket refills one request every 60 ms meanwhile (a loaded machine's burst lasts that long)
      const refilled = Math.floor((Date.now() - started) / 60);
      expect(admitted(answers)).toBeLessThanOrEqual(1_000 + refilled);
      expect(admitted(answers)).toBeGreaterThanOrEqual(1_000 - 2 * 10);
      const later = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? a! : b!).admit(call([key]))),
      );
      // what the replicas still held, and no more: the bucket refills at 1,000 a minute
      const refilledSince = Math.floor((Date.now() - started) / 60);
      expect(admitted(answers) + admitted(later)).toBeLessThanOrEqual(1_000 + 20 + refilledSince);
    });

    it("holds a few concurrency slots spare, never more than the limit in flight, and frees them when idle", async () => {
      // leases of 600 ms: renewed, and spare slots given back, every 200 ms
      const [a, b] = await replicasOf(2, 600);
      const workload: ScopeLimits = { scope: "workload", id: "wl_slots", limits: { concurrent: 100 } };
      const answers = await Promise.all(
        Array.from({ length: 150 }, (_, i) => (i % 2 ? a! : b!).admit(call([workload]))),
      );
      expect(admitted(answers)).toBeLessThanOrEqual(100);
      expect(admitted(answers)).toBeGreaterThanOrEqual(100 - 2);
      const [inFlight] = await a!.use([workload]);
      expect(inFlight?.concurrent).toBe(100);
      answers.forEach((answer, i) => {
        if (answer.ok) (i % 2 ? a! : b!).settle(answer.lease, 0);
      });
      // each replica keeps one spare slot (1 % of 100) until its next renewal
      await new Promise((r) => setTimeout(r, 50));
      expect((await a!.use([workload]))[0]?.concurrent).toBeLessThanOrEqual(2);
      await new Promise((r) => setTimeout(r, 400));
      expect((await a!.use([workload]))[0]?.concurrent).toBe(0);
    });

    it("trusts a budget's published spend for a moment only: a spent budget stops it", async () => {
      const [a] = await replicasOf(1);
      const budget = { micros: 1_000_000, period: "day", appliesTo: "all" } as const;
      const project: ScopeLimits = { scope: "project", id: "proj_trust", limits: { budget } };
      const spent = (micros: number) => ({
        scope: "project" as const,
        scopeId: "proj_trust",
        period: "day" as const,
        periodStart: new Date().toISOString().slice(0, 10),
        managedMicros: micros,
        allMicros: micros,
      });
      expect((await a!.admit(call([project], false))).ok).toBe(true);
      await a!.publishSpend([spent(1_000_000)]);
      // past what the replica trusts (100 ms), it looks again
      await new Promise((r) => setTimeout(r, 150));
      expect(await a!.admit(call([project], false))).toMatchObject({
        ok: false,
        refusal: { limit: "budget" },
      });
    });

    it("takes 1 % of the tokens bucket's room at most, and stops at what its own calls spent", async () => {
      const [a] = await replicasOf(1);
      const project: ScopeLimits = { scope: "project", id: "proj_tokens", limits: { tpm: 10_000 } };
      const first = await a!.admit(call([project]));
      if (!first.ok) throw new Error("refused");
      a!.settle(first.lease, 50);
      server?.kill("SIGSTOP");
      try {
        // 100 of the 10,000 tokens of room are this replica's to see spent: 50 are left
        const second = await a!.admit(call([project]));
        if (!second.ok) throw new Error("refused");
        expect(a!.counting()).toBe("shared");
        a!.settle(second.lease, 60);
        // past them, Redis is asked (and does not answer)
        await a!.admit(call([project]));
        expect(a!.counting()).toBe("local_fallback");
      } finally {
        server?.kill("SIGCONT");
      }
    });

    it("keeps what it holds across config re-reads: a new entry with the same limits is the same hold", async () => {
      const [a] = await replicasOf(1);
      let answers = 0;
      // the config cache parses a new entry object on each re-read
      for (let i = 0; i < 300; i++) {
        const key: ScopeLimits = { scope: "api_key", id: "key_reread", limits: { rpm: 10_000 } };
        if ((await a!.admit(call([key]))).ok) answers++;
      }
      expect(answers).toBe(300);
      const [use] = await a!.use([{ scope: "api_key", id: "key_reread", limits: { rpm: 10_000 } }]);
      // the calls and at most one reservation of 1 % still held
      expect(use?.requests).toBeLessThanOrEqual(300 + 101);
    });

    it("names its slots apart from another process with the same replica name", async () => {
      ns++;
      const twin = () => {
        const store = createRedisLimits({
          url: `redis://127.0.0.1:${port}`,
          log: silentLogger,
          timeoutMs: 200,
          namespace: `test${ns}`,
          instanceId: "gateway-same-host-1",
        });
        stores.push(store);
        return store;
      };
      const [a, b] = [twin(), twin()];
      await eventually(() => a.counting() === "shared" && b.counting() === "shared", 5_000);
      const workload: ScopeLimits = { scope: "workload", id: "wl_twins", limits: { concurrent: 100 } };
      let admittedCalls = 0;
      for (let i = 0; i < 60; i++) {
        if ((await a.admit(call([workload]))).ok) admittedCalls++;
        if ((await b.admit(call([workload]))).ok) admittedCalls++;
      }
      expect(admittedCalls).toBeLessThanOrEqual(100);
      expect((await a.use([workload]))[0]?.concurrent).toBeLessThanOrEqual(100);
    });

    it("stops using the slots Redis lost, and asks Redis again", async () => {
      // leases of 600 ms: renewed every 200 ms
      const [a] = await replicasOf(1, 600);
      const workload: ScopeLimits = { scope: "workload", id: "wl_lost", limits: { concurrent: 100 } };
      const first = await a!.admit(call([workload]));
      if (!first.ok) throw new Error("refused");
      // the call and one spare slot are held; then Redis loses them (a restart without persistence)
      const raw = new Redis(`redis://127.0.0.1:${port}`);
      await raw.del(`test${ns}:f:workload:wl_lost`);
      await new Promise((r) => setTimeout(r, 450));
      // the spare is not used as if Redis still had it: the next call takes a slot there
      expect((await a!.admit(call([workload]))).ok).toBe(true);
      expect((await raw.zcard(`test${ns}:f:workload:wl_lost`)) >= 1).toBe(true);
      raw.disconnect();
    });

    it("gives back every request and slot it holds when it closes", async () => {
      const [a, b] = await replicasOf(2);
      const key: ScopeLimits = {
        scope: "api_key",
        id: "key_close",
        limits: { rpm: 1_000, concurrent: 1_000 },
      };
      const answer = await a!.admit(call([key]));
      if (!answer.ok) throw new Error("refused");
      // one request and one slot used, ten of each more held
      expect(await b!.use([key])).toMatchObject([{ requests: 11, concurrent: 11 }]);
      a!.settle(answer.lease, 0);
      await a!.close();
      expect(await b!.use([key])).toMatchObject([{ requests: 1, concurrent: 0 }]);
    });
  });
});
