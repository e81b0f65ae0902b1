import { sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { apiKeys } from "./schema/api-keys.ts";

/**
 * Moves each key's `last_used_at` forward to its latest use among `uses`, never backwards (uses
 * arrive out of order and again on redelivery). One statement for the whole batch, the uses as one
 * jsonb parameter, however many keys it names.
 */
export async function recordKeyUses(db: Db, uses: { keyId: string; at: string }[]): Promise<void> {
  const latest = new Map<string, Date>();
  for (const use of uses) {
    const at = new Date(use.at);
    const seen = latest.get(use.keyId);
    if (!seen || seen < at) latest.set(use.keyId, at);
  }
  if (latest.size === 0) return;
  const rows = JSON.stringify([...latest].map(([id, at]) => ({ id, at: at.toISOString() })));
  await db.execute(
    sql`update ${apiKeys} set last_used_at = u.at
        from jsonb_to_recordset(${rows}::jsonb) as u(id text, at timestamptz)
        where ${apiKeys.id} = u.id and (${apiKeys.lastUsedAt} is null or ${apiKeys.lastUsedAt} < u.at)`,
  );
}
