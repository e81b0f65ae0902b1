import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CallInsert, type DbHandle, queryRows, rebuildRollups, recordCalls } from "../src/index.ts";
import { openTestDb, testStores } from "../src/testing/index.ts";

const tables = {
  call_rollups_hourly: "project_id, hour, workload_id, provider_label, model, route",
  call_rollups_minutely: "project_id, minute, workload_id, provider_label, model, route",
  call_latency_hourly: "project_id, span_hours, starts_at, workload_id, model, measure, bucket_ms",
};

/** Every row of the rollups and histograms, in key order; a cost as its value (PostgreSQL keeps a numeric's scale as written). */
async function sums(handle: DbHandle) {
  const out: Record<string, unknown[]> = {};
  for (const [table, key] of Object.entries(tables)) {
    const rows = await queryRows(handle.db, sql.raw(`select * from ${table} order by ${key}`));
    out[table] = rows.map(({ customer_cost_usd: cost, ...row }) =>
      cost === undefined
        ? row
        : {
            ...row,
            cost: String(cost)
              .replace(/(\.\d*?)0+$/, "$1")
              .replace(/\.$/, ""),
          },
    );
  }
  return out;
}

const base = Date.parse("2026-05-01T23:58:30.250Z");

/** Calls that meet every branch of every measure: errors, 5xx, broken streams, fallbacks, timeouts, no model, no usage, priced ones. */
function variedCalls(count: number): CallInsert[] {
  return Array.from({ length: count }, (_, i) => ({
    requestId: `req_in_hand_${i}`,
    orgId: "org_1",
    projectId: `proj_${i % 2}`,
    workloadId: `usp_${i % 3}`,
    apiKeyId: "api_key_1",
    receivedAt: new Date(base + i * 7_919),
    endpoint: "messages",
    providerLabel: i % 5 === 0 ? "provider_b" : "provider_a",
    mode: "byo",
    route: ["primary", "routed", "fallback"][i % 3]!,
    fallbackReason: i % 3 === 2 ? (i % 2 === 0 ? "timeout" : "error") : null,
    requestedModel: "m",
    // no model, a model, and one holding U+0000 (stored as U+FFFD)
    servedModel: i % 7 === 0 ? null : i % 11 === 0 ? "m-\u0000nul" : `m-${i % 2}`,
    stream: i % 2 === 0,
    status: [200, 200, 429, 500, 503, 200][i % 6]!,
    firstByteMs: i % 4 === 0 ? null : (i * 13.7) % 5_000,
    totalMs: (i * 311.9) % 90_000,
    streamOutcome: ["complete", "truncated", "upstream_error", "complete"][i % 4]!,
    tags: {},
    inputTokens: i % 6 === 0 ? null : i * 10,
    cacheReadInputTokens: i % 6 === 0 ? null : i,
    cacheCreationInputTokens: i % 9 === 0 ? null : 2 * i,
    outputTokens: i % 6 === 0 ? null : 3 * i,
    pricingStatus: i % 4 === 1 ? "priced" : "unpriced",
    unpricedReason: i % 4 === 1 ? null : "no_usage",
    customerCostUsd: i % 4 === 1 ? `0.${String(i).padStart(12, "0")}` : null,
  }));
}

/**
 * Recording sums the new calls into the rollups and histograms in JavaScript
 * (`rollups-in-hand.ts`); `rebuildRollups` sums the stored calls in SQL (`measures.ts`,
 * `latency.ts`), the SQL that also reads the partial edges of every report's window. The two must
 * give the same rows, on both stores.
 */
describe.each(testStores())("rollups from the rows in hand on %s", (store) => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb(store);
  });
  afterAll(() => handle.close());

  it("equal the SQL's sums of the stored calls, batch after batch, with ids met twice", async () => {
    const calls = variedCalls(600);
    // batches that cross minute, hour and day boundaries, one id twice in a batch, one batch again
    await recordCalls(handle.db, calls.slice(0, 250));
    await recordCalls(handle.db, [...calls.slice(250, 400), calls[300]!]);
    await recordCalls(handle.db, calls.slice(200, 600));
    await recordCalls(handle.db, calls.slice(0, 100));
    const recorded = await sums(handle);
    expect(recorded.call_rollups_minutely!.length).toBeGreaterThan(100);
    expect(recorded.call_latency_hourly!.length).toBeGreaterThan(100);

    await rebuildRollups(handle.db);
    expect(await sums(handle)).toEqual(recorded);
  });
});
