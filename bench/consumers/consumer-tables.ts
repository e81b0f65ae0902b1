import { calls, captureIndex, countPricingPending, type PgDb } from "@gateway/db";
import { count, sql } from "drizzle-orm";
import { type App, capturing } from "./consumer-settings.ts";

/** Events the consumer has done: an index row per capture; a call row whose pricing job has run. */
export async function done(db: PgDb, app: App): Promise<number> {
  if (capturing(app)) {
    const [row] = await db.select({ n: count() }).from(captureIndex);
    return row?.n ?? 0;
  }
  const [row] = await db.select({ n: count() }).from(calls);
  // a call counts once its pricing job has run
  return (row?.n ?? 0) - (await countPricingPending(db));
}

export async function tableBytes(db: PgDb, app: App): Promise<number> {
  const tables = capturing(app)
    ? ["capture_index"]
    : ["calls", "call_rollups_hourly", "call_rollups_minutely", "api_keys"];
  let bytes = 0;
  for (const table of tables) {
    const rows = (await db.execute(
      sql`select pg_total_relation_size(${table}::regclass)::bigint as b`,
    )) as unknown;
    const first = (Array.isArray(rows) ? rows[0] : (rows as { rows: unknown[] }).rows[0]) as { b: string };
    bytes += Number(first.b);
  }
  return bytes;
}

/** Objects the capture writer wrote: every index row names one (a redelivery would add one not named; the bench has none). */
export async function objectCount(db: PgDb, app: App): Promise<number> {
  if (!capturing(app)) return 0;
  const [row] = await db.select({ n: sql<string>`count(distinct ${captureIndex.key})` }).from(captureIndex);
  return Number(row?.n ?? 0);
}

export async function objectBytesSum(db: PgDb, app: App): Promise<number> {
  if (!capturing(app)) return 0;
  const [row] = await db
    .select({ b: sql<string>`coalesce(sum(${captureIndex.size}), 0)` })
    .from(captureIndex);
  return Number(row?.b ?? 0);
}
