import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callCost,
  type DbHandle,
  insertOrg,
  insertProjectWithDefaultWorkload,
  openDb,
  pruneCalls,
  queryRows,
  recordCalls,
  runMigrations,
  setRetention,
} from "../src/index.ts";
import { openTestDb, testStores } from "../src/testing/index.ts";
import { migrateWith, migrationsBefore } from "./support/migrations-before.ts";
import { generatedCall } from "./support/report-calls.ts";

const now = new Date("2026-11-28T12:30:00Z");

/** A call of `org_up` with these upstream ids. */
const call = (requestId: string, upstreamRequestId: string | null, upstreamResponseId: string | null) => ({
  ...generatedCall(1),
  requestId,
  orgId: "org_up",
  projectId: "proj_up",
  workloadId: "wl_up",
  receivedAt: new Date("2026-11-28T09:00:00Z"),
  upstreamRequestId,
  upstreamResponseId,
});

/**
 * Upstream ids as the providers make them, and ids a lookup could mistake for others: ids equal
 * but for case, one the prefix of another, punctuation and FTS5 query syntax, whitespace. On
 * SQLite they are found through an FTS5 table, whose terms fold case and split at whitespace
 * (migration 0006): the answer must still be the call with exactly that id, as on PostgreSQL.
 */
const calls = [
  call("req_a", "req_011CSHoEeqs5C35K2UUqR7Fy", "msg_01XFDUDYJgAACzvnptvVoYEL"),
  call("req_b", "req_b1f0c2", "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG"),
  call("req_c", null, "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b"),
  call("req_upper", "ID_CASE", null),
  call("req_lower", "id_case", null),
  call("req_prefix", "id_prefix_longer", "x"),
  call("req_punct", `p.q:r/s+t=u~v'w"x*`, "NEAR(a b) OR c"),
  call("req_words", "two words", null),
  call("req_split", "two", "words"),
];

describe.each(testStores())("finding a call by its upstream ids on %s", (store) => {
  let handle: DbHandle;
  beforeAll(async () => {
    handle = await openTestDb(store);
    for (const org of ["org_up", "org_other"]) await insertOrg(handle.db, { id: org, name: org });
    await insertProjectWithDefaultWorkload(
      handle.db,
      { id: "proj_up", orgId: "org_up", slug: "up", name: "up", isDefault: true },
      { id: "wl_up", name: "default" },
    );
    await recordCalls(handle.db, calls);
  });
  afterAll(() => handle?.close());

  const found = async (id: string, org = "org_up") =>
    (await callCost(handle.db, org, id))?.request_id ?? null;

  it("finds each call by either upstream id, exactly", async () => {
    for (const c of calls) {
      if (c.upstreamRequestId) expect(await found(c.upstreamRequestId)).toBe(c.requestId);
      if (c.upstreamResponseId) expect(await found(c.upstreamResponseId)).toBe(c.requestId);
    }
  });

  it("finds nothing for an id that only resembles one, nor for another org", async () => {
    for (const id of [
      "MSG_01XFDUDYJGAACZVNPTVVOYEL",
      "msg_01XFDUDYJgAACzvnptvVoYE",
      "id_prefix",
      "two words ",
      "words two",
      "NEAR(a b)",
      "c",
      "*",
      '"',
      "",
    ])
      expect(await found(id), id).toBeNull();
    expect(await found("msg_01XFDUDYJgAACzvnptvVoYEL", "org_other")).toBeNull();
  });

  it("forgets the ids of calls retention removed", async () => {
    const old = call("req_old", "req_old_upstream", "msg_old");
    await recordCalls(handle.db, [{ ...old, receivedAt: new Date("2026-11-20T09:00:00Z") }]);
    expect(await found("msg_old")).toBe("req_old");
    await setRetention(handle.db, "org_up", { callsDays: 3 });
    expect((await pruneCalls(handle.db, now)).deletedCalls).toBe(1);
    expect(await found("msg_old")).toBeNull();
    expect(await found("req_old_upstream")).toBeNull();
    if (store === "sqlite") {
      // the lookup table let go of it too, not only the join
      const left = await queryRows(
        handle.db,
        sql`select rowid from calls_upstream_ids where calls_upstream_ids match ${'"msg_old"'}`,
      );
      expect(left).toEqual([]);
    }
    expect(await found("msg_01XFDUDYJgAACzvnptvVoYEL")).toBe("req_a");
  });
});

describe("the migration to SQLite's upstream-id lookup", () => {
  it("takes in the calls a store already holds", async () => {
    const handle = await openDb({ kind: "sqlite", file: null });
    const before = await migrationsBefore("sqlite", "_upstream_ids_fts");
    try {
      await migrateWith(handle, before.folder);
      // as the release before stored them (today's insert also fills the table the migration makes)
      for (const c of calls.slice(0, 3))
        await queryRows(
          handle.db,
          sql`insert into calls (request_id, org_id, project_id, workload_id, api_key_id, received_at, endpoint,
                provider_label, mode, route, stream, status, total_ms, stream_outcome, tags,
                upstream_request_id, upstream_response_id)
              values (${c.requestId}, ${c.orgId}, ${c.projectId}, ${c.workloadId}, ${c.apiKeyId},
                ${c.receivedAt.getTime()}, 'messages', 'provider_a', 'byo', 'primary', 0, 200, 1, 'complete', '{}',
                ${c.upstreamRequestId}, ${c.upstreamResponseId})`,
        );
      await runMigrations(handle);
      expect((await callCost(handle.db, "org_up", "msg_01XFDUDYJgAACzvnptvVoYEL"))?.request_id).toBe("req_a");
      expect((await callCost(handle.db, "org_up", "req_b1f0c2"))?.request_id).toBe("req_b");
      // and the calls stored after it
      await recordCalls(handle.db, calls.slice(3, 4));
      expect((await callCost(handle.db, "org_up", "ID_CASE"))?.request_id).toBe("req_upper");
    } finally {
      await handle.close();
      await before.remove();
    }
  });
});
