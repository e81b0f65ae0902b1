import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CallInsert,
  countColumns,
  type DbHandle,
  insertPrice,
  priceCallsById,
  queryRows,
  recordCallBatch,
  recordCalls,
  type SpendScope,
  scopesOfCalls,
} from "../src/index.ts";
import { openTestDb, testStores } from "../src/testing/index.ts";

const base = Date.parse("2026-11-24T22:00:00.000Z");

/** Pending calls of priced and unpriced models, before and across a price change, some parts null; and calls without usage. */
function calls(): CallInsert[] {
  return Array.from({ length: 240 }, (_, i) => {
    const usage = i % 8 !== 7;
    return {
      requestId: `req_at_insert_${String(i).padStart(3, "0")}`,
      orgId: "org_1",
      projectId: `proj_${i % 2}`,
      workloadId: `usp_${i % 3}`,
      apiKeyId: `key_${i % 4}`,
      // from two hours before the first price to a day after the second (UTC days change)
      receivedAt: new Date(base + i * 659_000),
      endpoint: "messages",
      providerLabel: "provider_a",
      mode: i % 5 === 0 ? "managed" : "byo",
      route: "primary",
      requestedModel: "m",
      servedModel: ["priced-model", "priced-model", "unpriced-model", null][i % 4]!,
      stream: false,
      status: 200,
      firstByteMs: 10,
      totalMs: 20 + i,
      streamOutcome: "complete",
      tags: {},
      inputTokens: usage ? 1_000 + i : null,
      cacheReadInputTokens: usage ? 3 * i : null,
      cacheCreationInputTokens: usage ? 2 * i : null,
      cacheCreation5mInputTokens: usage ? i : null,
      // a missing 1h split leaves a priced call without a total, as SQL's null arithmetic does
      cacheCreation1hInputTokens: usage && i % 10 !== 3 ? i : null,
      // past 2^53 pico-dollars once multiplied: BigInt all the way
      outputTokens: usage ? (i === 100 ? 9_000_000_000 : 7 * i) : null,
      pricingStatus: "unpriced",
      unpricedReason: usage ? "pricing_pending" : "no_usage",
    };
  });
}

/** A money column as text (SQLite's pico-dollars may pass 2^53), named `<column>_text`. */
const usd = (column: string) => `cast(${column} as text) as ${column}_text`;

/** The calls' pricing, rollups and spend, money as its value (PostgreSQL keeps a numeric's scale). */
async function outcome(handle: DbHandle) {
  const money = (v: unknown) =>
    v === null
      ? null
      : String(v)
          .replace(/(\.\d*?)0+$/, "$1")
          .replace(/\.$/, "");
  const read = async (text: string) =>
    (await queryRows(handle.db, sql.raw(text))).map((row) =>
      Object.fromEntries(
        Object.entries(row).flatMap(([k, v]) =>
          k === "customer_cost_usd" ? [] : [[k, /_text$/.test(k) ? money(v) : v]],
        ),
      ),
    );
  return {
    calls:
      await read(`select request_id, pricing_status, unpriced_reason, price_id, priced_at is not null as priced,
        repriced_at, repriced_from_price_id, ${usd("uncached_input_usd")}, ${usd("cache_write_usd")},
        ${usd("cache_read_usd")}, ${usd("output_usd")}, ${usd("customer_cost_usd")} from calls order by request_id`),
    hourly: await read(`select project_id, hour, workload_id, model, ${countColumns.join(", ")},
        ${usd("customer_cost_usd")} from call_rollups_hourly order by project_id, hour, workload_id, model`),
    minutely: await read(`select project_id, minute, workload_id, model, ${countColumns.join(", ")},
        ${usd("customer_cost_usd")} from call_rollups_minutely order by project_id, minute, workload_id, model`),
    spend: await read(`select scope, scope_id, day, mode, ${usd("customer_cost_usd")} from spend_daily
        order by scope, scope_id, day, mode`),
  };
}

async function withPrices(handle: DbHandle) {
  const rates = (n: number) => ({
    inputUsdPerMtok: `${n}.123456`,
    cacheWrite5mUsdPerMtok: `${n}.5`,
    cacheWrite1hUsdPerMtok: "0.000001",
    cacheReadUsdPerMtok: "0.3",
    outputUsdPerMtok: `${n * 5}.654321`,
  });
  await insertPrice(handle.db, {
    id: "price_1",
    model: "priced-model",
    effectiveFrom: new Date(base + 7_200_000),
    ...rates(3),
  });
  await insertPrice(handle.db, {
    id: "price_2",
    model: "priced-model",
    effectiveFrom: new Date(base + 86_400_000),
    ...rates(4),
  });
}

/**
 * The all-in-one process prices a call before inserting it (`priceBeforeInsert`, in
 * `recordCallBatch`); the split deployment inserts it pending and prices it in a job
 * (`priceCallsById`). Both must leave the same calls, rollups and spend, on both stores.
 */
describe.each(testStores())("pricing at insert on %s", (store) => {
  let byJob: DbHandle;
  let atInsert: DbHandle;
  beforeAll(async () => {
    [byJob, atInsert] = await Promise.all([openTestDb(store), openTestDb(store)]);
    await withPrices(byJob);
    await withPrices(atInsert);
  });
  afterAll(async () => {
    await byJob.close();
    await atInsert.close();
  });

  it("leaves what inserting and then pricing leaves, and a batch again changes nothing", async () => {
    const rows = calls();
    const stored = new Set<string>();
    const byScope = (a: SpendScope, b: SpendScope) =>
      a.scope.localeCompare(b.scope) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    for (const part of [rows.slice(0, 150), rows.slice(100)]) {
      const ids = await recordCalls(byJob.db, part);
      await priceCallsById(byJob.db, ids);
      const { spentIn } = await recordCallBatch(atInsert.db, { calls: part, captures: [], keyUses: [] });
      // the scopes the batch's new costs went to: those the split deployment reads back by id
      const costed = (await outcome(atInsert)).calls.filter((c) => c.customer_cost_usd_text !== null);
      const newlyCosted = costed.map((c) => String(c.request_id)).filter((id) => !stored.has(id));
      for (const c of part) stored.add(c.requestId);
      expect(newlyCosted.length).toBeGreaterThan(10);
      expect(spentIn.toSorted(byScope)).toEqual(await scopesOfCalls(atInsert.db, newlyCosted));
    }
    const expected = await outcome(byJob);
    expect(expected.calls.filter((c) => c.pricing_status === "priced").length).toBeGreaterThan(60);
    expect(expected.calls.filter((c) => c.unpriced_reason === "no_price").length).toBeGreaterThan(60);
    expect(expected.spend.length).toBeGreaterThan(10);
    expect(await outcome(atInsert)).toEqual(expected);
  });
});
