import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countSums } from "../src/costing/measures.ts";
import {
  type DbHandle,
  insertPrice,
  priceCallsById,
  queryRows,
  recordCalls,
  repriceCallsFor,
} from "../src/index.ts";
import { callDim, selectDims, type WindowDim, windowTotals } from "../src/reports/window.ts";
import { sqlFor } from "../src/sql-dialect.ts";
import { toCount } from "../src/sql-rows.ts";
import { openTestDb, testStores } from "../src/testing/index.ts";
import { generatedCall, seedReportStore } from "./support/report-calls.ts";

/** Dense traffic over two hours: a call every 7.919 s from 09:58:10 UTC, so every minute holds some. */
const denseCalls = Array.from({ length: 900 }, (_, i) => ({
  ...generatedCall(1_000 + i),
  requestId: `req_dense_${i}`,
  receivedAt: new Date(Date.parse("2026-11-24T09:58:10.000Z") + i * 7_919),
}));

const at = (iso: string) => new Date(`2026-11-24T${iso}Z`);
/** Windows whose edges fall on and off minutes and hours, inside one minute to across days. */
const windows: [string, Date, Date][] = [
  ["inside one minute", at("10:15:03.500"), at("10:15:40.250")],
  ["across minutes of one hour", at("10:14:59.999"), at("10:41:00.001")],
  ["whole minutes", at("10:00:00.000"), at("10:30:00.000")],
  ["across hours, partial minutes", at("09:59:30.500"), at("11:42:17.300")],
  ["from a whole hour", at("10:00:00.000"), at("11:00:30.000")],
  ["to a whole hour", at("09:58:00.500"), at("11:00:00.000")],
  ["days", new Date("2026-11-23T22:30:00.123Z"), new Date("2026-11-25T13:15:59.999Z")],
];
const groupings: WindowDim[][] = [[], ["workload_id", "model", "route"], ["day", "provider_label"]];

/** What a scan of every call in the window gives: the reference the rollups must equal. */
async function fromCallsAlone(handle: DbHandle, start: Date, end: Date, dims: WindowDim[]) {
  const d = sqlFor(handle.db);
  const keys = dims.length === 0 ? sql`1` : sql.raw(dims.map((_, i) => String(i + 1)).join(", "));
  const rows = await queryRows<Record<string, unknown>>(
    handle.db,
    sql`select ${selectDims(dims, callDim(d))}, ${countSums}, ${d.costSums(sql`c.customer_cost_usd`)}
        from calls c
        where c.project_id = 'proj_1' and c.received_at >= ${d.ts(start)} and c.received_at <= ${d.ts(end)}
        group by ${keys} order by ${keys}`,
  );
  return rows.map((row) => ({
    ...Object.fromEntries(dims.map((k) => [k, String(row[k])])),
    requests: toCount(row.requests),
    errors: toCount(row.errors),
    failing: toCount(row.failing),
    timeouts: toCount(row.timeouts),
    outputTokens: toCount(row.output_tokens),
    pricedRequests: toCount(row.priced_requests),
    customerCostUsd: d.costText(row),
  }));
}

describe.each(testStores())("per-minute rollups on %s", (store) => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb(store);
    await seedReportStore(handle.db);
    for (let i = 0; i < denseCalls.length; i += 200) {
      // overlapping batches: a redelivered call adds to no rollup twice
      const ids = await recordCalls(handle.db, denseCalls.slice(Math.max(0, i - 20), i + 200));
      await priceCallsById(handle.db, ids);
    }
    // a price taking effect inside the dense hours: re-pricing moves both rollups' costs
    await insertPrice(handle.db, {
      id: "price_a3",
      model: "claude-sonnet-4-5",
      effectiveFrom: at("10:31:17.000"),
      inputUsdPerMtok: "1.25",
      cacheWrite5mUsdPerMtok: "1.5",
      cacheWrite1hUsdPerMtok: "2",
      cacheReadUsdPerMtok: "0.125",
      outputUsdPerMtok: "7.75",
    });
    await repriceCallsFor(handle.db, "claude-sonnet-4-5");
  });
  afterAll(() => handle.close());

  it.each(windows)("a window %s gives what the calls alone give", async (_, start, end) => {
    for (const dims of groupings) {
      const expected = await fromCallsAlone(handle, start, end, dims);
      expect(expected.length).toBeGreaterThan(0);
      const totals = await windowTotals(handle.db, { projectId: "proj_1", start, end }, dims);
      expect(
        totals.map((t) => ({
          ...Object.fromEntries(dims.map((k) => [k, t[k]])),
          requests: t.requests,
          errors: t.errors,
          failing: t.failing,
          timeouts: t.timeouts,
          outputTokens: t.outputTokens,
          pricedRequests: t.pricedRequests,
          customerCostUsd: t.customerCostUsd,
        })),
      ).toEqual(expected);
    }
  });

  it("the migration's backfill rebuilds what recording and pricing kept", async () => {
    const migration = {
      postgres: "postgres/0008_minute_rollups.sql",
      sqlite: "sqlite/0005_minute_rollups.sql",
    };
    const text = readFileSync(
      fileURLToPath(new URL(`../migrations/${migration[store]}`, import.meta.url)),
      "utf8",
    );
    const minutes = () =>
      queryRows(handle.db, sql`select * from call_rollups_minutely order by 1, 2, 3, 4, 5, 6`);
    const kept = await minutes();
    expect(kept.length).toBeGreaterThan(500);
    await queryRows(handle.db, sql`delete from call_rollups_minutely`);
    await queryRows(handle.db, sql.raw(text.split("--> statement-breakpoint").at(-1)!));
    expect(await minutes()).toEqual(kept);
  });
});
