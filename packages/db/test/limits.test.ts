import { noLimits } from "@gateway/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DbHandle, readLimits, readLimitsOf, writeLimits } from "../src/index.ts";
import { openTestDb, testStores } from "../src/testing/index.ts";

describe.each(testStores())("limits on %s", (store) => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb(store);
  });
  afterAll(() => handle?.close());

  const workload = { scope: "workload", scopeId: "usp_1", orgId: "org_1" } as const;
  const budget = { usd: "250", period: "month", applies_to: "managed" } as const;

  it("reads no limits and no updated_at for a scope that never had any", async () => {
    expect(await readLimits(handle.db, "workload", "usp_none")).toEqual({
      limits: noLimits(),
      updatedAt: null,
    });
  });

  it("sets the fields given, keeps those left out, and clears those sent as null", async () => {
    const { db } = handle;
    const set = await writeLimits(db, workload, { requests_per_minute: 60, budget });
    expect(set).toEqual({
      limits: { ...noLimits(), requests_per_minute: 60, budget: { ...budget, usd: "250.00" } },
      updatedAt: expect.any(Date),
    });
    expect(await readLimits(db, "workload", "usp_1")).toEqual(set);

    const partial = await writeLimits(db, workload, { tokens_per_minute: 10_000, requests_per_minute: null });
    expect(partial.limits).toEqual({
      requests_per_minute: null,
      tokens_per_minute: 10_000,
      max_concurrent: null,
      budget: { ...budget, usd: "250.00" },
    });
    // the same id under another scope is another scope
    expect((await readLimits(db, "project", "usp_1")).limits).toEqual(noLimits());

    // an update without fields writes nothing, so updated_at does not move
    expect(await writeLimits(db, workload, {})).toEqual(await readLimits(db, "workload", "usp_1"));
  });

  it("keeps the budget exact: six decimals in, the same out, and two decimals at least", async () => {
    const { db } = handle;
    for (const [usd, read] of [
      ["0.000125", "0.000125"],
      ["999999999.999999", "999999999.999999"],
      ["12.5", "12.50"],
      ["007", "7.00"],
    ]) {
      const written = await writeLimits(db, workload, { budget: { ...budget, usd: usd! } });
      expect(written.limits.budget?.usd, usd).toBe(read);
      expect((await readLimits(db, "workload", "usp_1")).limits.budget?.usd, usd).toBe(read);
    }
  });

  it("drops the row when the last limit is cleared", async () => {
    const { db } = handle;
    const cleared = await writeLimits(db, workload, { tokens_per_minute: null, budget: null });
    expect(cleared).toEqual({ limits: noLimits(), updatedAt: null });
    // a scope without a row reads no updated_at
    expect(await readLimits(db, "workload", "usp_1")).toEqual({ limits: noLimits(), updatedAt: null });
    // clearing what is not set leaves no row behind either
    const key = { scope: "api_key", scopeId: "api_key_1", orgId: "org_1" } as const;
    await writeLimits(db, key, { max_concurrent: null });
    expect(await readLimits(db, "api_key", "api_key_1")).toEqual({ limits: noLimits(), updatedAt: null });
  });

  it("reads the limits of many scopes in one call, none for those without a row", async () => {
    const { db } = handle;
    await writeLimits(db, { scope: "project", scopeId: "proj_a", orgId: "org_1" }, { max_concurrent: 4 });
    await writeLimits(
      db,
      { scope: "project", scopeId: "proj_b", orgId: "org_1" },
      { requests_per_minute: 9 },
    );
    await writeLimits(
      db,
      { scope: "workload", scopeId: "proj_a", orgId: "org_1" },
      { requests_per_minute: 1 },
    );
    const of = await readLimitsOf(db, "project", ["proj_a", "proj_c"]);
    // the project's limits only, not those of the workload with the same id
    expect(of("proj_a")).toEqual({ ...noLimits(), max_concurrent: 4 });
    // not asked for, so not read
    expect(of("proj_b")).toEqual(noLimits());
    expect(of("proj_c")).toEqual(noLimits());
    expect((await readLimitsOf(db, "project", []))("proj_a")).toEqual(noLimits());
  });
});
