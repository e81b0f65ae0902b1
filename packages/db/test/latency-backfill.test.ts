import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DbHandle, queryRows, recordCalls } from "../src/index.ts";
import { openTestDb, testStores } from "../src/testing/index.ts";

const migration = { postgres: "postgres/0007_console.sql", sqlite: "sqlite/0004_console.sql" };

/** The console migration's last statement: the histograms of the calls stored before it. */
function backfill(store: keyof typeof migration): string {
  const text = readFileSync(
    fileURLToPath(new URL(`../migrations/${migration[store]}`, import.meta.url)),
    "utf8",
  );
  return text.split("--> statement-breakpoint").at(-1)!;
}

const histogram = (handle: DbHandle) =>
  queryRows(
    handle.db,
    sql`select project_id, span_hours, starts_at, workload_id, model, measure, bucket_ms, calls
        from call_latency_hourly order by 1, 2, 3, 4, 5, 6, 7`,
  );

/**
 * An upgraded store's calls get the latency histograms the costing worker would have kept: the
 * migration's backfill, run over calls recorded before, rebuilds exactly the rows `recordCalls`
 * made for them.
 */
describe.each(testStores())("the latency histograms' backfill on %s", (store) => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb(store);
  });
  afterAll(() => handle.close());

  it("rebuilds what recording the calls made", async () => {
    const base = Date.parse("2026-05-01T00:00:00.000Z");
    await recordCalls(
      handle.db,
      Array.from({ length: 300 }, (_, i) => ({
        requestId: `req_backfill_${i}`,
        orgId: "org_1",
        projectId: "proj_1",
        workloadId: `usp_${i % 3}`,
        apiKeyId: "api_key_1",
        receivedAt: new Date(base + i * 1_234_567),
        endpoint: "messages",
        providerLabel: "provider_a",
        mode: "byo",
        route: "primary",
        requestedModel: "m",
        servedModel: i % 4 === 0 ? null : `m-${i % 2}`,
        stream: true,
        status: 200,
        firstByteMs: i % 5 === 0 ? null : i * 7.3,
        totalMs: i * 31.7 + 0.4,
        streamOutcome: "complete",
        tags: {},
        pricingStatus: "unpriced",
      })),
    );
    const recorded = await histogram(handle);
    expect(recorded.length).toBeGreaterThan(300);
    await queryRows(handle.db, sql`delete from call_latency_hourly`);
    await queryRows(handle.db, sql.raw(backfill(store)));
    expect(await histogram(handle)).toEqual(recorded);
  });
});
