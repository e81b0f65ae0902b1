import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DbHandle, insertOrg, inTransaction, listOrgs, type SqliteDb } from "../src/index.ts";
import { openTestDb } from "../src/testing/index.ts";

/** SQLite's one connection: a transaction holds its turn across awaits (docs/decisions.md). */
describe("the SQLite connection's turns", () => {
  let handle: DbHandle<SqliteDb>;
  beforeAll(async () => {
    handle = await openTestDb("sqlite");
  });
  afterAll(() => handle?.close());

  it("runs a statement from outside after an open transaction ends, never inside it", async () => {
    const { db } = handle;
    let letGo = () => {};
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let inside = () => {};
    const started = new Promise<void>((resolve) => {
      inside = resolve;
    });
    const rolledBack = inTransaction(db, async (tx) => {
      await insertOrg(tx, { id: "org_tx", name: "rolled back" });
      inside();
      await held;
      throw new Error("rolled back");
    });
    await started;
    // issued while the transaction is open: it must wait, and survive the rollback
    const outside = insertOrg(db, { id: "org_outside", name: "kept" });
    const reads = listOrgs(db, null, 10);
    letGo();
    await expect(rolledBack).rejects.toThrow("rolled back");
    await outside;
    expect((await reads).map((o) => o.id)).toEqual(["org_outside"]);
    expect((await listOrgs(db, null, 10)).map((o) => o.id)).toEqual(["org_outside"]);
  });

  it("takes concurrent transactions one after another, a nested one as a savepoint", async () => {
    const { db } = handle;
    await Promise.all(
      ["org_1", "org_2", "org_3"].map((id) =>
        inTransaction(db, async (tx) => {
          await insertOrg(tx, { id, name: id });
          await inTransaction(tx, (inner) => insertOrg(inner, { id: `${id}_dup`, name: "x" }));
          await inTransaction(tx, async (inner) => {
            await insertOrg(inner, { id: `${id}_gone`, name: "x" });
            throw new Error("savepoint rolled back");
          }).catch(() => {});
        }),
      ),
    );
    expect((await listOrgs(db, null, 20)).map((o) => o.id)).toEqual([
      "org_1",
      "org_1_dup",
      "org_2",
      "org_2_dup",
      "org_3",
      "org_3_dup",
      "org_outside",
    ]);
  });
});
