import { sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { isSqlite } from "./dialect.ts";
import { queryRows } from "./sql-rows.ts";

/** A key was used at `at` (ISO 8601). */
export interface KeyUse {
  keyId: string;
  at: string;
}

/**
 * Moves each key's `last_used_at` forward to its latest use among `uses`, never backwards (uses
 * arrive out of order and again on redelivery). One statement for the whole batch, the uses as one
 * JSON parameter, however many keys it names.
 */
export async function recordKeyUses(db: Db, uses: KeyUse[]): Promise<void> {
  const latest = new Map<string, Date>();
  for (const use of uses) {
    const at = new Date(use.at);
    const seen = latest.get(use.keyId);
    if (!seen || seen < at) latest.set(use.keyId, at);
  }
  if (latest.size === 0) return;
  if (isSqlite(db)) {
    const rows = JSON.stringify([...latest].map(([id, at]) => ({ id, at: at.getTime() })));
    await queryRows(
      db,
      sql`update api_keys set last_used_at = u.at
          from (select value ->> 'id' as id, value ->> 'at' as at from json_each(${rows})) as u
          where api_keys.id = u.id and (api_keys.last_used_at is null or api_keys.last_used_at < u.at)`,
    );
    return;
  }
  const rows = JSON.stringify([...latest].map(([id, at]) => ({ id, at: at.toISOString() })));
  await queryRows(
    db,
    sql`update api_keys set last_used_at = u.at
        from jsonb_to_recordset(${rows}::jsonb) as u(id text, at timestamptz)
        where api_keys.id = u.id and (api_keys.last_used_at is null or api_keys.last_used_at < u.at)`,
  );
}
