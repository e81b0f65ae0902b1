import { sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { isSqlite } from "../dialect.ts";
import { queryRows } from "../sql-rows.ts";

/** The stored rows of an idempotency key, whatever their scope and route (its request's status and answer). */
export function idempotencyRows(db: Db, key: string) {
  return queryRows<{ owner: string; status: number | null; response: string | null }>(
    db,
    sql`select owner, status, response from idempotency_keys where key = ${key}`,
  );
}

/** Makes a key's rows `seconds` older, as if their first request had come that long ago. */
export async function ageIdempotencyKey(db: Db, key: string, seconds: number): Promise<void> {
  await queryRows(
    db,
    isSqlite(db)
      ? sql`update idempotency_keys set created_at = created_at - ${seconds * 1000} where key = ${key}`
      : sql`update idempotency_keys set created_at = created_at - (${seconds}::int * interval '1 second')
            where key = ${key}`,
  );
}

/** Puts a completed key back as it was while its first request ran: no status, no answer yet. */
export async function reopenIdempotencyKey(db: Db, key: string): Promise<void> {
  await queryRows(db, sql`update idempotency_keys set status = null, response = null where key = ${key}`);
}
