import type { SqliteConnection } from "./connection.ts";

/**
 * The calls' upstream ids go into `calls_upstream_ids` (FTS5, migration 0006) one statement a
 * batch, from the rows just inserted: SQLite gives a new row the rowid after the largest, so the
 * batch's calls are those above the largest rowid before it. A trigger did this per call at ~8 µs
 * a call more (docs/decisions.md, "Upstream ids on SQLite").
 */
export function withUpstreamIdsIndexed<T>(connection: SqliteConnection, insert: () => T): T {
  const { last } = connection.statement("select coalesce(max(rowid), 0) as last from calls").get() as {
    last: number;
  };
  const result = insert();
  connection
    .statement(
      `insert into calls_upstream_ids (rowid, upstream_request_id, upstream_response_id)
       select rowid, upstream_request_id, upstream_response_id from calls where rowid > ?`,
    )
    .run(last);
  return result;
}
