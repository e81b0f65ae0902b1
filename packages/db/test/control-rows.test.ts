import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  anyOrgExists,
  catalogModelWithDeployments,
  claimIdempotencyKey,
  completeIdempotencyKey,
  type DbHandle,
  findLiveApiKey,
  indexedCaptureKeys,
  insertApiKey,
  insertOrg,
  inTransaction,
  isActiveCatalogModel,
  isUniqueViolation,
  listOrgs,
  pendingPricingIds,
  rebuildRollups,
  releaseIdempotencyKey,
  replaceCatalogModel,
  revokeLiveApiKey,
  sweepIdempotencyKeys,
  usageSummaryGroups,
} from "../src/index.ts";
import { openTestDb, testStores } from "../src/testing/index.ts";
import { reportWindow, seedReportStore } from "./support/report-calls.ts";

const deployment = {
  providerLabel: "managed",
  wireFormat: "messages",
  baseUrl: "http://127.0.0.1:1",
  upstreamModel: "big-1",
  credentialEnv: "BIG_KEY",
  priority: 1,
} as const;

describe.each(testStores())("control-plane rows on %s", (store) => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb(store);
  });
  afterAll(() => handle?.close());

  it("orgs and keys: listed in id order, a duplicate is a unique violation, a revoked key is gone", async () => {
    const { db } = handle;
    expect(await anyOrgExists(db)).toBe(false);
    for (const id of ["org_b", "org_a"]) await insertOrg(db, { id, name: id });
    expect((await listOrgs(db, null, 10)).map((o) => o.id)).toEqual(["org_a", "org_b"]);
    expect((await listOrgs(db, "org_a", 10)).map((o) => o.id)).toEqual(["org_b"]);
    const key = { id: "key_1", orgId: "org_a", name: null, keyHash: "h1", obfuscatedValue: "sk_…" };
    await insertApiKey(db, key);
    const again = await insertApiKey(db, { ...key, id: "key_2" }).catch((error: unknown) => error);
    expect(isUniqueViolation(again)).toBe(true);
    // a failed statement inside a transaction rolls the whole of it back
    await expect(
      inTransaction(db, async (tx) => {
        await insertOrg(tx, { id: "org_c", name: "c" });
        await insertApiKey(tx, { ...key, id: "key_3" });
      }),
    ).rejects.toThrow();
    expect((await listOrgs(db, null, 10)).map((o) => o.id)).toEqual(["org_a", "org_b"]);
    expect(await findLiveApiKey(db, "org_a", "key_1", { lock: false })).toMatchObject({ keyHash: "h1" });
    expect((await revokeLiveApiKey(db, "org_a", "key_1"))?.revokedAt).toBeInstanceOf(Date);
    expect(
      await inTransaction(db, (tx) => findLiveApiKey(tx, "org_a", "key_1", { lock: true })),
    ).toBeUndefined();
  });

  it("a catalog model restated keeps its deployment ids; a new set replaces them", async () => {
    const { db } = handle;
    const state = { displayName: "Big", active: true, deployments: [deployment] };
    expect(await replaceCatalogModel(db, "cat-big", state)).toEqual({ created: true });
    const ids = async () => (await catalogModelWithDeployments(db, "cat-big"))?.deployments.map((d) => d.id);
    const first = await ids();
    expect(first).toHaveLength(1);
    expect(await replaceCatalogModel(db, "cat-big", state)).toEqual({ created: false });
    expect(await ids()).toEqual(first);
    await replaceCatalogModel(db, "cat-big", { ...state, active: false, deployments: [] });
    expect((await catalogModelWithDeployments(db, "cat-big"))?.deployments).toEqual([]);
    expect(await isActiveCatalogModel(db, "cat-big")).toBe(false);
  });

  it("an idempotency key: claimed once, replayed when complete, refused to another request, freed on release", async () => {
    const { db } = handle;
    const target = { scope: "org_a", route: "POST /x", key: "k1" };
    const times = { retentionSeconds: 3600, abandonedAfterSeconds: 60 };
    const request = { requestHash: "hash-1", owner: "req_1" };
    expect(await claimIdempotencyKey(db, target, request, times)).toEqual({ kind: "claimed" });
    expect(await claimIdempotencyKey(db, target, { ...request, owner: "req_2" }, times)).toEqual({
      kind: "in_progress",
    });
    expect(await claimIdempotencyKey(db, target, { requestHash: "hash-2", owner: "req_3" }, times)).toEqual({
      kind: "other_request",
    });
    await completeIdempotencyKey(db, target, "req_1", { status: 201, response: '{"id":1}' });
    expect(await claimIdempotencyKey(db, target, { ...request, owner: "req_4" }, times)).toEqual({
      kind: "completed",
      status: 201,
      response: '{"id":1}',
    });
    const other = { ...target, key: "k2" };
    await claimIdempotencyKey(db, other, request, times);
    await releaseIdempotencyKey(db, other, "req_1");
    expect(await claimIdempotencyKey(db, other, { ...request, owner: "req_5" }, times)).toEqual({
      kind: "claimed",
    });
    // with no retention left, every row is expired: swept, and the key is new again
    await sweepIdempotencyKeys(db, -1);
    expect(await claimIdempotencyKey(db, target, { requestHash: "hash-9", owner: "req_6" }, times)).toEqual({
      kind: "claimed",
    });
  });

  it("rollups rebuilt from the calls give the same usage as the ones kept while recording", async () => {
    const fresh = await openTestDb(store);
    try {
      await seedReportStore(fresh.db);
      const kept = await usageSummaryGroups(fresh.db, reportWindow, ["day", "workload", "model"]);
      await rebuildRollups(fresh.db);
      expect(await usageSummaryGroups(fresh.db, reportWindow, ["day", "workload", "model"])).toEqual(kept);
      expect(kept.length).toBeGreaterThan(5);
      expect(await pendingPricingIds(fresh.db, 10)).toEqual([]);
      const indexed = await indexedCaptureKeys(fresh.db, ["req_0000", "req_0004", "req_0099"]);
      expect(new Set(indexed.keys())).toEqual(new Set(["req_0000", "req_0004"]));
    } finally {
      await fresh.close();
    }
  });
});
