import { afterAll, describe, expect, it } from "vitest";
import { type DbHandle, insertApiKey, insertOrg, listApiKeys, recordKeyUses } from "../src/index.ts";
import { openTestDb, testStores } from "../src/testing/index.ts";

describe.each(testStores())("key uses on %s", (store) => {
  let handle: DbHandle;
  afterAll(() => handle?.close());

  it("moves each key's last use forward to its latest, never back, in one statement per batch", async () => {
    handle = await openTestDb(store);
    const { db } = handle;
    await insertOrg(db, { id: "org_1", name: "o" });
    for (const id of ["k1", "k2", "k3"])
      await insertApiKey(db, {
        id,
        orgId: "org_1",
        name: null,
        keyHash: `hash-${id}`,
        obfuscatedValue: "sk_...x",
      });
    const lastUse = async (id: string) =>
      (await listApiKeys(db, "org_1")).find((k) => k.id === id)?.lastUsedAt?.toISOString();

    // out of order within the batch, a key twice, a key nobody has
    await recordKeyUses(db, [
      { keyId: "k1", at: "2026-11-25T10:00:02.000Z" },
      { keyId: "k2", at: "2026-11-25T10:00:00.000Z" },
      { keyId: "k1", at: "2026-11-25T10:00:01.000Z" },
      { keyId: "k-gone", at: "2026-11-25T10:00:00.000Z" },
    ]);
    expect([await lastUse("k1"), await lastUse("k2"), await lastUse("k3")]).toEqual([
      "2026-11-25T10:00:02.000Z",
      "2026-11-25T10:00:00.000Z",
      undefined,
    ]);
    // a late (redelivered) use does not move it back; a newer one does
    await recordKeyUses(db, [
      { keyId: "k1", at: "2026-11-25T09:00:00.000Z" },
      { keyId: "k2", at: "2026-11-25T11:00:00.000Z" },
    ]);
    expect([await lastUse("k1"), await lastUse("k2")]).toEqual([
      "2026-11-25T10:00:02.000Z",
      "2026-11-25T11:00:00.000Z",
    ]);
    await recordKeyUses(db, []);
  });
});
