import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DbHandle } from "../src/index.ts";
import { callRows, captureIndexRows, openTestDb, testStores } from "../src/testing/index.ts";
import { reportCallCount, seedReportStore } from "./support/report-calls.ts";

const id = (i: number) => `req_${String(i).padStart(4, "0")}`;
const ids = (rows: { requestId: string }[]) => rows.map((r) => r.requestId);

/** The tests' own reads and writes (`@gateway/db/testing`) give the same rows on every store. */
describe.each(testStores())("the test helpers on %s", (store) => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb(store);
    await seedReportStore(handle.db);
  });
  afterAll(() => handle?.close());

  it("callRows reads every call, oldest first, or those matching every condition given", async () => {
    const { db } = handle;
    const all = await callRows(db);
    expect(ids(all)).toEqual(Array.from({ length: reportCallCount }, (_, i) => id(i)));
    expect(all[1]).toMatchObject({
      receivedAt: new Date(Date.UTC(2026, 10, 23, 21, 37, 1, 1)),
      workloadId: "wl_main",
      tags: { team: "b" },
      inputTokens: 1_037,
    });
    expect(ids(await callRows(db, { requestIds: [id(3), id(1), "req_none"] }))).toEqual([id(1), id(3)]);
    expect(ids(await callRows(db, { workloadId: "wl_x" }))).toEqual(
      Array.from({ length: reportCallCount / 4 }, (_, i) => id(i * 4)),
    );
    expect(ids(await callRows(db, { workloadId: "wl_x", requestIds: [id(1), id(4)] }))).toEqual([id(4)]);
    expect(await callRows(db, { projectId: "proj_none" })).toEqual([]);
    expect(await callRows(db, { projectId: "proj_1" })).toHaveLength(reportCallCount);
  });

  it("captureIndexRows reads the capture index the same way", async () => {
    const { db } = handle;
    expect(ids(await captureIndexRows(db))).toEqual([0, 1, 2, 3, 4].map(id));
    expect(await captureIndexRows(db, { workloadId: "wl_x" })).toEqual([
      expect.objectContaining({ requestId: id(0), key: `captures/${id(0)}.jsonl`, size: 100 }),
      expect.objectContaining({ requestId: id(4), key: `captures/${id(4)}.jsonl`, size: 104 }),
    ]);
    expect(ids(await captureIndexRows(db, { requestIds: [id(2)], projectId: "proj_1" }))).toEqual([id(2)]);
    expect(await captureIndexRows(db, { requestIds: [id(9)] })).toEqual([]);
  });
});
