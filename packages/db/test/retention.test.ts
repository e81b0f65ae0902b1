import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type DbHandle,
  findCaptureIndexRow,
  indexCaptures,
  insertOrg,
  insertProjectWithDefaultWorkload,
  pruneCalls,
  pruneCaptures,
  queryRows,
  recordCalls,
  retentionDefaults,
  retentionOf,
  setRetention,
  usageSummaryGroups,
} from "../src/index.ts";
import { callRows, captureIndexRows, openTestDb, testStores } from "../src/testing/index.ts";
import { generatedCall } from "./support/report-calls.ts";

const now = new Date("2026-11-28T12:30:00Z");
const hour = 3_600_000;
/** Three days back (kept by the defaults, past a one-day retention) and today. */
const old = new Date("2026-11-25T10:15:00Z");
const today = new Date("2026-11-28T09:45:00Z");

const call = (id: string, org: "short" | "long", at: Date) => ({
  ...generatedCall(1),
  requestId: id,
  orgId: `org_${org}`,
  projectId: `proj_${org}`,
  workloadId: `wl_${org}`,
  receivedAt: at,
});

const capture = (id: string, org: "short" | "long", at: Date, key: string) => ({
  requestId: id,
  orgId: `org_${org}`,
  projectId: `proj_${org}`,
  workloadId: `wl_${org}`,
  apiKeyId: "key_1",
  key,
  size: 10,
  uploadedAt: new Date(at.getTime() + 2_000),
  receivedAt: at,
});

const ids = (rows: { requestId: string }[]) => rows.map((r) => r.requestId).sort();

describe.each(testStores())("retention on %s", (store) => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb(store);
    for (const org of ["short", "long"]) {
      await insertOrg(handle.db, { id: `org_${org}`, name: org });
      await insertProjectWithDefaultWorkload(
        handle.db,
        { id: `proj_${org}`, orgId: `org_${org}`, slug: org, name: org, isDefault: true },
        { id: `wl_${org}`, name: "default" },
      );
    }
  });
  afterAll(() => handle?.close());

  const partitions = async (table: string) =>
    store === "sqlite"
      ? []
      : (
          await queryRows<{ name: string }>(
            handle.db,
            sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
                where i.inhparent = ${table}::regclass order by 1`,
          )
        ).map((r) => r.name);

  it("keeps the documented defaults until set; null goes back to the default", async () => {
    expect(await retentionOf(handle.db, "org_long")).toEqual(retentionDefaults);
    expect(await setRetention(handle.db, "org_short", { callsDays: 1, capturesDays: 1 })).toEqual({
      ...retentionDefaults,
      callsDays: 1,
      capturesDays: 1,
    });
    await setRetention(handle.db, "org_short", { rollupsDays: 7 });
    await setRetention(handle.db, "org_short", { rollupsDays: null });
    expect(await retentionOf(handle.db, "org_short")).toEqual({
      ...retentionDefaults,
      callsDays: 1,
      capturesDays: 1,
    });
  });

  it("stores a redelivered call or capture once, and a call of a day with no partition yet", async () => {
    const calls = [call("req_s_old", "short", old), call("req_l_old", "long", old)];
    calls.push(call("req_s_new", "short", today), call("req_l_new", "long", today));
    expect((await recordCalls(handle.db, calls)).sort()).toEqual(ids(calls));
    expect(await recordCalls(handle.db, calls)).toEqual([]);
    // a late event: a day the maintenance job never made ahead
    const late = call("req_l_late", "long", new Date("2026-10-01T08:00:00Z"));
    expect(await recordCalls(handle.db, [late])).toEqual(["req_l_late"]);

    const captures = [
      capture("req_s_old", "short", old, "captures/org_short/segments/2026-11-25/a.jsonl"),
      // one segment, two days: it goes only with its last row
      capture(
        "req_s_late",
        "short",
        new Date(old.getTime() + 14 * hour),
        "captures/org_short/segments/2026-11-26/b.jsonl",
      ),
      capture("req_s_new", "short", today, "captures/org_short/segments/2026-11-26/b.jsonl"),
      capture("req_l_old", "long", old, "captures/org_long/segments/2026-11-25/c.jsonl"),
    ];
    await indexCaptures(handle.db, captures);
    // redelivered after a crash: uploaded again, later, with the call's same received_at
    await indexCaptures(
      handle.db,
      captures.map((c) => ({ ...c, uploadedAt: now })),
    );
    expect(ids(await captureIndexRows(handle.db))).toEqual(ids(captures));
  });

  it("drops each org's calls past its retention, by whole days; the rollups keep the usage", async () => {
    // starting inside the hour of the short org's old call: read from its row, then from the rollup
    const window = { projectId: "proj_short", start: new Date("2026-11-25T10:05:00Z"), end: now };
    const usageBefore = await usageSummaryGroups(handle.db, window, ["day"]);
    expect(usageBefore.map((g) => [g.day, g.requests])).toEqual([
      ["2026-11-25", 1],
      ["2026-11-28", 1],
    ]);
    const pruned = await pruneCalls(handle.db, now);
    // the day of `old` still holds the long-retention org's call: only the short one's row goes
    // its per-minute rollup goes with it; the hourly one stays
    expect(pruned).toEqual({
      droppedPartitions: [],
      deletedCalls: 1,
      deletedRollups: 0,
      deletedMinuteRollups: 1,
      deletedLatencyRows: 0,
    });
    expect(ids(await callRows(handle.db))).toEqual(["req_l_late", "req_l_new", "req_l_old", "req_s_new"]);
    expect(await usageSummaryGroups(handle.db, window, ["day"])).toEqual(usageBefore);
    if (store === "postgres") expect(await partitions("calls")).toContain("calls_p20261125");

    // once every org is past a day, its partition is dropped whole
    await setRetention(handle.db, "org_long", { callsDays: 2 });
    const again = await pruneCalls(handle.db, now);
    // SQLite has no partitions: it deletes the same rows one by one
    expect(again.deletedCalls).toBe(store === "postgres" ? 0 : 2);
    expect(again.deletedMinuteRollups).toBe(2);
    expect(ids(await callRows(handle.db))).toEqual(["req_l_new", "req_s_new"]);
    if (store === "postgres") {
      expect(again.droppedPartitions).toEqual(["calls_p20261001", "calls_p20261125"]);
      expect(await partitions("calls")).toEqual(["calls_p20261128"]);
    } else {
      expect(again.droppedPartitions).toEqual([]);
    }
    expect(await usageSummaryGroups(handle.db, window, ["day"])).toEqual(usageBefore);
    expect(await pruneCalls(handle.db, now)).toEqual({
      droppedPartitions: [],
      deletedCalls: 0,
      deletedRollups: 0,
      deletedMinuteRollups: 0,
      deletedLatencyRows: 0,
    });
  });

  it("drops rollups past their own, longer retention", async () => {
    await setRetention(handle.db, "org_short", { rollupsDays: 2 });
    const pruned = await pruneCalls(handle.db, now);
    expect(pruned.deletedRollups).toBe(1);
    // the old call's latency in its 1-, 6- and 24-hour periods goes with its rollup
    expect(pruned.deletedLatencyRows).toBeGreaterThanOrEqual(3);
    expect((await pruneCalls(handle.db, now)).deletedLatencyRows).toBe(0);
    const window = { projectId: "proj_short", start: new Date(now.getTime() - 7 * 24 * hour), end: now };
    expect((await usageSummaryGroups(handle.db, window, ["day"])).map((g) => g.day)).toEqual(["2026-11-28"]);
  });

  it("removes captures past retention and the objects no kept row names; a removed capture is not found", async () => {
    const deleted: string[] = [];
    const pruned = await pruneCaptures(handle.db, now, async (keys) => {
      deleted.push(...keys);
    });
    expect(deleted).toEqual(["captures/org_short/segments/2026-11-25/a.jsonl"]);
    expect(pruned).toMatchObject({ deletedCaptures: 2, deletedObjects: 1 });
    // the day of the capture that shared a segment had no other row left
    expect(pruned.droppedPartitions).toEqual(store === "postgres" ? ["capture_index_p20261126"] : []);
    expect(await findCaptureIndexRow(handle.db, "proj_short", "req_s_old")).toBeUndefined();
    expect(ids(await captureIndexRows(handle.db))).toEqual(["req_l_old", "req_s_new"]);

    // every org past the day: its objects go, then its partition
    await setRetention(handle.db, "org_long", { capturesDays: 1 });
    deleted.length = 0;
    const again = await pruneCaptures(handle.db, now, async (keys) => {
      deleted.push(...keys);
    });
    expect(deleted).toEqual(["captures/org_long/segments/2026-11-25/c.jsonl"]);
    expect(ids(await captureIndexRows(handle.db))).toEqual(["req_s_new"]);
    expect(again.droppedPartitions).toEqual(store === "postgres" ? ["capture_index_p20261125"] : []);
    if (store === "postgres") {
      expect(await partitions("capture_index")).toEqual(["capture_index_p20261128"]);
    }
  });
});
