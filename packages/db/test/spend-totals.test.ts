import type { SpendTotal } from "@gateway/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  budgetSpendTotals,
  type Db,
  type DbHandle,
  priceCallsById,
  type SpendScope,
  scopeSpend,
  scopesOfCalls,
  spendTotals,
  writeLimits,
} from "../src/index.ts";
import { testStores } from "../src/testing/index.ts";
import { openSpendCallsDb, picoOf, picoToUsd, type SpendCall, spendCalls } from "./support/spend-calls.ts";

const now = new Date("2026-11-25T15:00:00.000Z");
const fieldOf = { api_key: "key", project: "project", workload: "workload" } as const;

/** The total `spendTotals` should give, summed apart from the database and floored to micros. */
function expectedTotal(s: SpendScope, period: "day" | "month"): SpendTotal {
  const periodStart = period === "day" ? "2026-11-25" : "2026-11-01";
  const inScope = (c: SpendCall) =>
    c[fieldOf[s.scope]] === s.id && c.at.startsWith(period === "day" ? "2026-11-25" : "2026-11");
  return {
    scope: s.scope,
    scopeId: s.id,
    period,
    periodStart,
    managedMicros: Number(picoOf((c) => inScope(c) && c.mode === "managed") / 1_000_000n),
    allMicros: Number(picoOf(inScope) / 1_000_000n),
  };
}
const expectedTotals = (scopes: SpendScope[]) =>
  scopes.flatMap((s) => [expectedTotal(s, "day"), expectedTotal(s, "month")]);

const budget = { usd: "10", period: "month", applies_to: "all" } as const;

/** Runs `check` while `scopes` have a budget (of org_1), and takes the budgets away after. */
async function withBudgets<T>(db: Db, scopes: readonly SpendScope[], check: () => Promise<T>): Promise<T> {
  const target = (s: SpendScope) => ({ scope: s.scope, scopeId: s.id, orgId: "org_1" });
  for (const s of scopes) await writeLimits(db, target(s), { budget });
  try {
    return await check();
  } finally {
    for (const s of scopes) await writeLimits(db, target(s), { budget: null });
  }
}

describe.each(testStores())("spend totals on %s", (store) => {
  let handle: DbHandle;
  let db: Db;
  beforeAll(async () => {
    handle = await openSpendCallsDb(store);
    db = handle.db;
    await priceCallsById(
      db,
      spendCalls.map((c) => c.id),
    );
  });
  afterAll(() => handle?.close());

  it("sums a scope's days into the day and the month holding now, managed apart, floored to micros", async () => {
    // in result order: scope, then id
    const scopes: SpendScope[] = [
      { scope: "api_key", id: "k1" },
      { scope: "api_key", id: "k2" },
      { scope: "project", id: "p1" },
      { scope: "project", id: "p2" },
      { scope: "workload", id: "nobody" },
      { scope: "workload", id: "w2" },
    ];
    const totals = await withBudgets(db, scopes, () => spendTotals(db, [...scopes, scopes[0]!], now));
    expect(totals).toEqual(expectedTotals(scopes));
    // p2 spent only in October: zero now, published so that a stale total is cleared
    expect(totals.filter((t) => t.scopeId === "p2").map((t) => t.allMicros)).toEqual([0, 0]);
    expect(totals.find((t) => t.scopeId === "p1" && t.period === "month")!.allMicros).toBeGreaterThan(0);
    expect(await spendTotals(db, [], now)).toEqual([]);
  });

  it("starts every period again at its first UTC instant", async () => {
    const p1: SpendScope[] = [{ scope: "project", id: "p1" }];
    const december = await withBudgets(db, p1, () => spendTotals(db, p1, new Date("2026-12-01T00:00:00Z")));
    expect(december).toEqual([
      {
        scope: "project",
        scopeId: "p1",
        period: "day",
        periodStart: "2026-12-01",
        managedMicros: 0,
        allMicros: 0,
      },
      {
        scope: "project",
        scopeId: "p1",
        period: "month",
        periodStart: "2026-12-01",
        managedMicros: 0,
        allMicros: 0,
      },
    ]);
  });

  it("answers the exact spend for the report, the same sums before rounding", async () => {
    const [day, month] = await scopeSpend(db, [{ scope: "workload", id: "w1" }], now);
    const w1 = (c: SpendCall) => c.workload === "w1";
    expect(day).toMatchObject({
      period: "day",
      allUsd: picoToUsd(picoOf((c) => w1(c) && c.at.startsWith("2026-11-25"))),
      managedUsd: picoToUsd(picoOf((c) => w1(c) && c.mode === "managed" && c.at.startsWith("2026-11-25"))),
    });
    expect(month).toMatchObject({
      period: "month",
      allUsd: picoToUsd(picoOf((c) => w1(c) && c.at.startsWith("2026-11"))),
    });
  });

  it("gives the totals of the scopes with a budget only: the gateway reads no other", async () => {
    const k1: SpendScope = { scope: "api_key", id: "k1" };
    const p1: SpendScope = { scope: "project", id: "p1" };
    await writeLimits(db, { scope: "project", scopeId: "p1", orgId: "org_1" }, { requests_per_minute: 5 });
    // p1 has limits but no budget, k1 none at all: neither has totals
    expect(await spendTotals(db, [k1, p1], now)).toEqual([]);
    expect(await withBudgets(db, [k1], () => spendTotals(db, [k1, p1], now))).toEqual(expectedTotals([k1]));
    await writeLimits(db, { scope: "project", scopeId: "p1", orgId: "org_1" }, { requests_per_minute: null });
  });

  it("republishes the scopes with a budget, and no other", async () => {
    await writeLimits(db, { scope: "project", scopeId: "p1", orgId: "org_1" }, { budget });
    await writeLimits(
      db,
      { scope: "api_key", scopeId: "k2", orgId: "org_1" },
      { budget: { ...budget, applies_to: "managed" } },
    );
    await writeLimits(db, { scope: "workload", scopeId: "w2", orgId: "org_1" }, { requests_per_minute: 5 });
    expect(await budgetSpendTotals(db, now)).toEqual(
      expectedTotals([
        { scope: "api_key", id: "k2" },
        { scope: "project", id: "p1" },
      ]),
    );
  });

  it("names the scopes of a set of calls", async () => {
    expect(await scopesOfCalls(db, ["r1", "r3", "r-unknown"])).toEqual([
      { scope: "api_key", id: "k1" },
      { scope: "api_key", id: "k2" },
      { scope: "project", id: "p1" },
      { scope: "workload", id: "w1" },
      { scope: "workload", id: "w2" },
    ]);
    expect(await scopesOfCalls(db, [])).toEqual([]);
  });
});
