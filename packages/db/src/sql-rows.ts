import { type SQL, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { isSqlite } from "./dialect.ts";

/** Runs raw SQL and returns its rows: postgres.js and SQLite answer an array, the upgrade's PGlite `{rows}`. */
export async function queryRows<T extends Record<string, unknown>>(db: Db, query: SQL): Promise<T[]> {
  if (isSqlite(db)) {
    const run = () => db.orm.all<T>(query);
    return db.depth > 0 ? run() : db.connection.holdTurn(run);
  }
  const result: unknown = await db.execute(query);
  if (Array.isArray(result)) return result as T[];
  return (result as { rows: T[] }).rows;
}

/** Postgres text and jsonb cannot hold U+0000, and a caller can put one in any string it sends. */
export const noNul = (value: string) =>
  value.includes("\u0000") ? value.replaceAll("\u0000", "\uFFFD") : value;

/** A count from SQL: bigint sums arrive as strings on postgres.js and as numbers or bigints on SQLite. */
export function toCount(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return typeof value === "number" ? value : Number(value);
}

/** A numeric column as its exact decimal text; '0' when null. */
export function toDecimalText(value: unknown): string {
  if (value === null || value === undefined) return "0";
  return String(value);
}

/** The database's clock: `now()`, or milliseconds since the epoch on SQLite. */
export function dbNow(db: Db): SQL {
  return isSqlite(db) ? sql`(cast(unixepoch('subsec') * 1000 as integer))` : sql`now()`;
}
