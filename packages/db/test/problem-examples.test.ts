import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "../src/index.ts";
import {
  insertOrg,
  insertProjectWithDefaultWorkload,
  insertWorkload,
  providerHealth,
  recordCalls,
  workloadStatuses,
} from "../src/index.ts";
import { openTestDb, testStores } from "../src/testing/index.ts";
import { generatedCall } from "./support/report-calls.ts";

const window = {
  projectId: "proj_1",
  start: new Date("2026-11-23T00:00:00.000Z"),
  end: new Date("2026-11-24T00:00:00.000Z"),
};
/** More problem calls than the first page the examples are searched in (1,000). */
const busyProblems = 1_500;
const at = (minute: number) => new Date(window.start.getTime() + minute * 60_000);

/** A 502 of `workload` at `when`, with `generatedCall`'s other fields. */
const failed = (id: string, workload: string, when: Date) => ({
  ...generatedCall(1),
  requestId: id,
  workloadId: workload,
  receivedAt: when,
  providerLabel: "provider_a" as const,
  servedModel: "claude-sonnet-4-5",
  route: "primary" as const,
  status: 502,
  refusedBy: null,
});

/**
 * The examples of a rare group are older than many problem calls of a busy one: the newest-first
 * search pages past the busy group's calls and still names the rare group's newest problems.
 */
describe.each(testStores())("problem examples on %s", (store) => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb(store);
    await insertOrg(handle.db, { id: "org_1", name: "o" });
    await insertProjectWithDefaultWorkload(
      handle.db,
      { id: "proj_1", orgId: "org_1", slug: "shop", name: "Shop", isDefault: true },
      { id: "wl_busy", name: "busy" },
    );
    await insertWorkload(handle.db, {
      id: "wl_rare",
      projectId: "proj_1",
      name: "rare",
      captureEnabled: true,
    });
    const rare = [10, 20, 30].map((m) => failed(`req_rare_${m}`, "wl_rare", at(m)));
    const busy = Array.from({ length: busyProblems }, (_, i) =>
      failed(`req_busy_${String(i).padStart(4, "0")}`, "wl_busy", at(60 + i / 2)),
    );
    await recordCalls(handle.db, [...rare, ...busy]);
  });
  afterAll(() => handle?.close());

  it("names the rare group's newest problems behind a page of the busy group's", async () => {
    const health = await providerHealth(handle.db, window);
    const byWorkload = new Map(health.providers.map((p) => [p.workload, p]));
    expect(byWorkload.get("rare")?.example_request_ids).toEqual([
      "req_rare_30",
      "req_rare_20",
      "req_rare_10",
    ]);
    expect(byWorkload.get("rare")?.last_failing_at).toBe(at(30).toISOString());
    expect(byWorkload.get("busy")?.example_request_ids).toEqual(
      [1499, 1498, 1497, 1496, 1495].map((i) => `req_busy_${i}`),
    );
    const statuses = await workloadStatuses(handle.db, window);
    const rare = statuses.find((s) => s.display_name === "rare");
    expect(rare?.example_request_ids).toEqual(["req_rare_30", "req_rare_20", "req_rare_10"]);
    expect(rare?.last_error_at).toBe("2026-11-23 00:30:00.000");
  });
});
