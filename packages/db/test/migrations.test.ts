import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { type DbHandle, freshPostgresDatabase, openDb, runMigrations, testStores } from "../src/index.ts";

const expectedTables = [
  "api_keys",
  "call_rollups_hourly",
  "calls",
  "capture_index",
  "catalog_deployments",
  "catalog_models",
  "idempotency_keys",
  "limits",
  "orgs",
  "prices",
  "projects",
  "spend_daily",
  "workloads",
];

describe.each(testStores())("migrations on %s", (store) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function open(): Promise<DbHandle> {
    if (store === "pglite") return openDb({ kind: "pglite", dataDir: null });
    const fresh = await freshPostgresDatabase(process.env.GATEWAY_TEST_POSTGRES_URL!);
    cleanups.push(fresh.drop);
    return openDb(fresh.config);
  }

  it("creates every table of the interface, and running again changes nothing", async () => {
    const handle = await open();
    cleanups.push(() => handle.close());
    await runMigrations(handle);
    await runMigrations(handle);
    const rows = await handle.db.execute<{ table_name: string }>(
      sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    );
    const names = (Array.isArray(rows) ? rows : (rows as { rows: { table_name: string }[] }).rows).map(
      (r) => r.table_name,
    );
    expect(names).toEqual(expectedTables);
  });

  it("keeps one live slug per org but frees it on soft delete", async () => {
    const handle = await open();
    cleanups.push(() => handle.close());
    await runMigrations(handle);
    const { db } = handle;
    await db.execute(sql`insert into orgs (id, name) values ('org_a', 'a')`);
    await db.execute(
      sql`insert into projects (id, org_id, slug, name) values ('proj_1', 'org_a', 'web', 'Web')`,
    );
    await expect(
      db.execute(
        sql`insert into projects (id, org_id, slug, name) values ('proj_2', 'org_a', 'web', 'Web 2')`,
      ),
    ).rejects.toThrow();
    await db.execute(sql`update projects set deleted_at = now() where id = 'proj_1'`);
    await db.execute(
      sql`insert into projects (id, org_id, slug, name) values ('proj_3', 'org_a', 'web', 'Web 3')`,
    );
  });

  it("startup work under the exclusive lock runs once for processes starting together", async () => {
    let first: DbHandle;
    let second: DbHandle;
    if (store === "postgres") {
      // Two processes' pools on one fresh database.
      const fresh = await freshPostgresDatabase(process.env.GATEWAY_TEST_POSTGRES_URL!);
      cleanups.push(fresh.drop);
      first = await openDb(fresh.config);
      second = await openDb(fresh.config);
      cleanups.push(
        () => first.close(),
        () => second.close(),
      );
    } else {
      // One PGlite has one user: this process.
      first = await open();
      second = first;
      cleanups.push(() => first.close());
    }
    const startup = (handle: DbHandle) =>
      handle.exclusive(async () => {
        await runMigrations(handle);
        const rows = await handle.db.execute(sql`select count(*)::int as n from orgs`);
        const n = (Array.isArray(rows) ? rows : (rows as { rows: { n: number }[] }).rows)[0] as { n: number };
        if (n.n === 0)
          await handle.db.execute(
            sql`insert into orgs (id, name) values (${`org_${Math.random()}`}, 'first')`,
          );
      });
    await Promise.all([startup(first), startup(second), startup(first)]);
    const rows = await first.db.execute(sql`select count(*)::int as n from orgs`);
    expect((Array.isArray(rows) ? rows : (rows as { rows: { n: number }[] }).rows)[0]).toEqual({ n: 1 });
  });
});
