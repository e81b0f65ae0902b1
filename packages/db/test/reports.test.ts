import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "../src/index.ts";
import { openTestDb, testStores } from "../src/testing/index.ts";
import { allReports } from "./support/all-reports.ts";
import { reportCallCount, seedReportStore } from "./support/report-calls.ts";

describe.each(testStores())("reports on %s", (store) => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb(store);
    await seedReportStore(handle.db);
  });
  afterAll(() => handle?.close());

  it("answers every report over the generated workload with the same JSON as the other store", async () => {
    const reports = await allReports(handle);
    // the workload is what it says: most calls in the window, priced, with errors and refusals
    expect(reports.usage_total[0]!.requests).toBeGreaterThan(reportCallCount / 2);
    expect(reports.usage_total[0]!.customer_cost_usd).toBeGreaterThan(0);
    expect(reports.limits_status.some((s) => s.refused.total > 0)).toBe(true);
    await expect(`${JSON.stringify(reports, null, 2)}\n`).toMatchFileSnapshot("./support/reports.snap");
  });
});
