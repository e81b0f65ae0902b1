import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { type DbHandle, openDb, queryRows, runMigrations } from "../src/index.ts";
import { freshPostgresDatabase, testStores } from "../src/testing/index.ts";

const expectedTables = [
  "api_keys",
  "call_latency_hourly",
  "call_rollups_hourly",
  "call_rollups_minutely",
  "calls",
  "capture_index",
  "catalog_deployments",
  "catalog_models",
  "idempotency_keys",
  "limits",
  "org_retention",
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
    if (store === "sqlite") return openDb({ kind: "sqlite", file: null });
    const fresh = await freshPostgresDatabase(process.env.GATEWAY_TEST_POSTGRES_URL!);
    cleanups.push(fresh.drop);
    return openDb(fresh.config);
  }

  it("creates every table of the interface, and running again changes nothing", async () => {
    const handle = await open();
    cleanups.push(() => handle.close());
    await runMigrations(handle);
    await runMigrations(handle);
    const rows = await queryRows<{ name: string }>(
      handle.db,
      store === "sqlite"
        ? sql`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'
              and name not like '__drizzle%' order by name`
        : sql`select table_name as name from information_schema.tables where table_schema = 'public' order by 1`,
    );
    // SQLite's upstream-id lookup (migration 0006): an FTS5 table and the tables FTS5 keeps it in
    const lookup = [
      "calls_upstream_ids",
      ...["config", "data", "docsize", "idx"].map((s) => `calls_upstream_ids_${s}`),
    ];
    expect(rows.map((r) => r.name)).toEqual(
      store === "sqlite" ? [...expectedTables, ...lookup].sort() : expectedTables,
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
      // One SQLite file has one process (the data dir is locked): its callers take turns.
      first = await open();
      second = first;
      cleanups.push(() => first.close());
    }
    const count = async (handle: DbHandle) =>
      Number((await queryRows<{ n: unknown }>(handle.db, sql`select count(*) as n from orgs`))[0]!.n);
    const startup = (handle: DbHandle) =>
      handle.exclusive(async () => {
        await runMigrations(handle);
        if ((await count(handle)) === 0)
          await queryRows(
            handle.db,
            sql`insert into orgs (id, name) values (${`org_${Math.random()}`}, 'first')`,
          );
      });
    await Promise.all([startup(first), startup(second), startup(first)]);
    expect(await count(first)).toBe(1);
  });
});
