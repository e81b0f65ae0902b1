import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DbHandle, openDb, orgs, type PgDb, runMigrations } from "../src/index.ts";

describe("PGlite on its own thread", () => {
  let handle: DbHandle<PgDb>;
  beforeAll(async () => {
    handle = await openDb({ kind: "pglite", dataDir: null, ownThread: true });
    await runMigrations(handle);
  });
  afterAll(() => handle.close());

  it("runs queries, commits transactions and rolls them back on a throw", async () => {
    const { db } = handle;
    await db.insert(orgs).values({ id: "org_t1", name: "one" });
    await db.transaction(async (tx) => {
      await tx.insert(orgs).values({ id: "org_t2", name: "two" });
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.insert(orgs).values({ id: "org_t3", name: "three" });
        throw new Error("changed my mind");
      }),
    ).rejects.toThrow("changed my mind");
    const rows = await db.select().from(orgs).orderBy(orgs.id);
    expect(rows.map((r) => r.id)).toEqual(["org_t1", "org_t2"]);
    expect(rows[0]!.createdAt).toBeInstanceOf(Date);
    const [one] = await db.select({ name: orgs.name }).from(orgs).where(eq(orgs.id, "org_t1"));
    expect(one).toEqual({ name: "one" });
  });

  it("passes the database's error code across the thread", async () => {
    await expect(handle.db.insert(orgs).values({ id: "org_t1", name: "again" })).rejects.toMatchObject({
      cause: { code: "23505" },
    });
  });

  it("answers concurrent queries in arrival order while a transaction holds the database", async () => {
    const order: string[] = [];
    const tx = handle.db.transaction(async (t) => {
      await t.execute(sql`select pg_sleep(0.05)`);
      order.push("tx");
    });
    const plain = handle.db.execute(sql`select 1`).then(() => order.push("plain"));
    await Promise.all([tx, plain]);
    expect(order).toEqual(["tx", "plain"]);
  });
});
