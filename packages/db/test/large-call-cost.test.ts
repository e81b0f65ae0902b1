import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callCost,
  type DbHandle,
  insertPrice,
  priceCallsById,
  recordCalls,
  repriceCallsFor,
  usageSummaryGroups,
} from "../src/index.ts";
import { openTestDb, testStores } from "../src/testing/index.ts";
import { generatedCall } from "./support/report-calls.ts";

const outputPrice = (id: string, from: string, usdPerMtok: string) => ({
  id,
  model: "huge-model",
  effectiveFrom: new Date(from),
  inputUsdPerMtok: "0",
  cacheWrite5mUsdPerMtok: "0",
  cacheWrite1hUsdPerMtok: "0",
  cacheReadUsdPerMtok: "0",
  outputUsdPerMtok: usdPerMtok,
});

describe.each(testStores())("a call costing more than 2^53 pico-dollars on %s", (store) => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb(store);
  });
  afterAll(() => handle?.close());

  it("is priced, re-priced and read exactly", async () => {
    const { db } = handle;
    const call = {
      ...generatedCall(1),
      servedModel: "huge-model",
      outputTokens: 1_000_000_001,
      unpricedReason: "pricing_pending" as const,
    };
    const total = async () => {
      const [all] = await usageSummaryGroups(
        db,
        { projectId: call.projectId, start: new Date(0), end: new Date("2100-01-01T00:00:00Z") },
        [],
      );
      return all?.customer_cost_usd;
    };
    await insertPrice(db, outputPrice("price_1", "2000-01-01T00:00:00Z", "15.000001"));
    await recordCalls(db, [call]);
    await priceCallsById(db, [call.requestId]);
    // input (generatedCall's) costs nothing here: 1,000,000,001 output tokens at $15.000001/Mtok,
    // the exact sum made a JSON number once, at the edge
    expect(await total()).toBe(Number("15000.001015000001"));
    // re-pricing reads the old cost back: on SQLite, past 2^53 pico-dollars it is read as text
    await insertPrice(db, outputPrice("price_2", "2001-01-01T00:00:00Z", "16"));
    expect(await repriceCallsFor(db, "huge-model")).toBe(1);
    expect(await total()).toBe(16_000.000016);
    // and the call-cost route reads the one call's cost
    expect((await callCost(db, call.orgId, call.requestId))?.customer_cost_usd).toBe(16_000.000016);
  });
});
