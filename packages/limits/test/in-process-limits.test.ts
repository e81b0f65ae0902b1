import type { LimitsEntry } from "@gateway/contracts";
import { describe, expect, it } from "vitest";
import { createInProcessLimits } from "../src/index.ts";
import type { AdmitRequest, LimitStore, ScopeLimits } from "../src/limit-store.ts";
import { localCounters } from "../src/local-counters.ts";

const at = Date.UTC(2026, 10, 25, 12, 0, 0);
let clock = at;
const store = (): LimitStore => {
  clock = at;
  return createInProcessLimits(() => clock);
};
const scope = (scopeName: ScopeLimits["scope"], limits: LimitsEntry, id = `${scopeName}_1`): ScopeLimits => ({
  scope: scopeName,
  id,
  limits,
});
let n = 0;
const call = (scopes: ScopeLimits[], managed = true): AdmitRequest => ({
  requestId: `req_${++n}`,
  scopes,
  managed,
});

async function admitted(limits: LimitStore, request: () => AdmitRequest, times: number) {
  let ok = 0;
  for (let i = 0; i < times; i++) if ((await limits.admit(request())).ok) ok++;
  return ok;
}

describe("in-process limits", () => {
  it("lets an idle scope send its requests per minute at once, then one per 60 s / limit", async () => {
    const limits = store();
    const key = scope("api_key", { rpm: 60 });
    expect(await admitted(limits, () => call([key]), 100)).toBe(60);
    const refused = await limits.admit(call([key]));
    expect(refused).toMatchObject({
      ok: false,
      refusal: {
        scope: "api_key",
        scopeId: "api_key_1",
        limit: "requests_per_minute",
        value: 60,
        retryAfterMs: 1_000,
      },
    });
    clock += 1_000;
    expect(await admitted(limits, () => call([key]), 5)).toBe(1);
    // sustained: a minute later, another 60
    clock += 60_000;
    expect(await admitted(limits, () => call([key]), 100)).toBe(60);
  });

  it("holds a call to the tightest of its scopes, and a refused call takes from none of them", async () => {
    const limits = store();
    const key = scope("api_key", { rpm: 100 });
    const project = scope("project", { rpm: 10 });
    expect(await admitted(limits, () => call([key, project]), 50)).toBe(10);
    // the 40 refused by the project took nothing from the key: it still has 90 left
    expect(await admitted(limits, () => call([key]), 200)).toBe(90);
  });

  it("admits while tokens remain, spends the reported tokens after the call, and waits out a debt", async () => {
    const limits = store();
    const workload = scope("workload", { tpm: 600 });
    const first = await limits.admit(call([workload]));
    if (!first.ok) throw new Error("refused");
    limits.settle(first.lease, 900); // 300 tokens over a full bucket: 30 s of debt at 10 tokens/s
    const refused = await limits.admit(call([workload]));
    expect(refused).toMatchObject({
      ok: false,
      refusal: { limit: "tokens_per_minute", retryAfterMs: 30_100 },
    });
    clock += 30_100;
    expect((await limits.admit(call([workload]))).ok).toBe(true);
    expect(await limits.use([workload])).toEqual([
      { scope: "workload", id: "workload_1", requests: 0, tokens: 599, concurrent: 0 },
    ]);
  });

  it("refuses past max_concurrent until a call in flight ends", async () => {
    const limits = store();
    const project = scope("project", { concurrent: 2 });
    const a = await limits.admit(call([project]));
    const b = await limits.admit(call([project]));
    expect(a.ok && b.ok).toBe(true);
    expect(await limits.admit(call([project]))).toMatchObject({
      ok: false,
      refusal: { limit: "max_concurrent" },
    });
    if (a.ok) limits.settle(a.lease, 0);
    expect((await limits.admit(call([project]))).ok).toBe(true);
  });

  it("refuses a spent budget until its period ends, managed calls only when it applies to managed", async () => {
    const limits = store();
    const budget = { micros: 5_000_000, period: "day", appliesTo: "managed" } as const;
    const project = scope("project", { budget });
    await limits.publishSpend([
      {
        scope: "project",
        scopeId: "project_1",
        period: "day",
        periodStart: "2026-11-25",
        managedMicros: 5_000_000,
        allMicros: 7_000_000,
      },
    ]);
    expect(await limits.admit(call([project], true))).toMatchObject({
      ok: false,
      refusal: { limit: "budget", value: 5_000_000, retryAfterMs: 12 * 3_600_000 },
    });
    expect((await limits.admit(call([project], false))).ok).toBe(true);
    // an earlier period's late total does not replace the current one
    await limits.publishSpend([
      {
        scope: "project",
        scopeId: "project_1",
        period: "day",
        periodStart: "2026-11-24",
        managedMicros: 0,
        allMicros: 0,
      },
    ]);
    expect((await limits.admit(call([project], true))).ok).toBe(false);
    // nor does a lower total of the same period (a late worker)
    await limits.publishSpend([
      {
        scope: "project",
        scopeId: "project_1",
        period: "day",
        periodStart: "2026-11-25",
        managedMicros: 1,
        allMicros: 1,
      },
    ]);
    expect((await limits.admit(call([project], true))).ok).toBe(false);
    // the next day starts from nothing
    clock = Date.UTC(2026, 10, 26, 0, 0, 1);
    expect((await limits.admit(call([project], true))).ok).toBe(true);
  });
});

describe("counters that start spent (a replica counting alone)", () => {
  it("refuse the first call for exactly one interval, even when the clock moves between reads", () => {
    // a clock that ticks a millisecond on every read, as a loaded machine's does
    let t = at;
    const counters = localCounters(() => t++, { startSpent: true });
    const key = scope("api_key", { rpm: 600 }); // one every 100 ms
    expect(counters.admit(call([key]))).toMatchObject({
      ok: false,
      refusal: { limit: "requests_per_minute", retryAfterMs: 100 },
    });
  });
});
