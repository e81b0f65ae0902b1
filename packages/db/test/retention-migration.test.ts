import { sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { openDb, queryRows, runMigrations } from "../src/index.ts";
import { freshPostgresDatabase, testStores } from "../src/testing/index.ts";
import { migrateWith, migrationsBefore } from "./support/migrations-before.ts";

const ms = (iso: string) => new Date(iso).getTime();

describe.each(testStores())("the retention migration on %s", (store) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it("keeps every call and capture row; a capture takes its call's received_at, or its upload time", async () => {
    const fresh =
      store === "postgres" ? await freshPostgresDatabase(process.env.GATEWAY_TEST_POSTGRES_URL!) : null;
    if (fresh) cleanups.push(fresh.drop);
    const handle = await openDb(fresh?.config ?? { kind: "sqlite", file: null });
    cleanups.push(() => handle.close());
    const before = await migrationsBefore(store, "_retention");
    cleanups.push(before.remove);
    await migrateWith(handle, before.folder);

    const at = (iso: string) => (store === "sqlite" ? sql`${ms(iso)}` : sql`${iso}::timestamptz`);
    for (const [id, received] of [
      ["req_1", "2026-11-20T23:59:59.999Z"],
      ["req_2", "2026-11-21T00:00:00.000Z"],
    ] as const) {
      await queryRows(
        handle.db,
        sql`insert into calls (request_id, org_id, project_id, workload_id, api_key_id, received_at, endpoint,
              provider_label, mode, route, stream, status, total_ms, stream_outcome, tags)
            values (${id}, 'org_1', 'proj_1', 'wl_1', 'key_1', ${at(received)}, 'messages', 'provider_a', 'byo',
              'primary', ${store === "sqlite" ? sql`0` : sql`false`}, 200, 1, 'complete', '{}')`,
      );
    }
    for (const id of ["req_1", "req_orphan"]) {
      await queryRows(
        handle.db,
        sql`insert into capture_index (request_id, org_id, project_id, workload_id, api_key_id, key, size, uploaded_at)
            values (${id}, 'org_1', 'proj_1', 'wl_1', 'key_1', ${`captures/${id}.jsonl`}, 10, ${at("2026-11-22T08:00:00.000Z")})`,
      );
    }

    await runMigrations(handle);

    const calls = await queryRows<{ request_id: string }>(
      handle.db,
      sql`select request_id from calls order by 1`,
    );
    expect(calls.map((r) => r.request_id)).toEqual(["req_1", "req_2"]);
    const captures = await queryRows<{ request_id: string; received_at: unknown }>(
      handle.db,
      sql`select request_id, received_at from capture_index order by 1`,
    );
    expect(captures.map((r) => [r.request_id, new Date(r.received_at as string | number).getTime()])).toEqual(
      [
        ["req_1", ms("2026-11-20T23:59:59.999Z")],
        ["req_orphan", ms("2026-11-22T08:00:00.000Z")],
      ],
    );
    if (store === "postgres") {
      const partitions = await queryRows<{ name: string }>(
        handle.db,
        sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where c.relkind = 'r' order by 1`,
      );
      expect(partitions.map((r) => r.name)).toEqual([
        "calls_p20261120",
        "calls_p20261121",
        "capture_index_p20261120",
        "capture_index_p20261122",
      ]);
    }
  });
});
