import { type SQL, sql } from "drizzle-orm";
import type { Db } from "./client.ts";

/** Runs raw SQL and returns its rows; PGlite answers `{rows}`, postgres.js an array. */
export async function queryRows<T extends Record<string, unknown>>(
  db: Pick<Db, "execute">,
  query: SQL,
): Promise<T[]> {
  const result: unknown = await db.execute(query);
  if (Array.isArray(result)) return result as T[];
  return (result as { rows: T[] }).rows;
}

/** A count from SQL: bigint sums arrive as strings on postgres.js and as numbers or bigints on PGlite. */
export function toCount(value: unknown): number {
  if (value === null || value === undefined) return 0;
  return typeof value === "number" ? value : Number(value);
}

/** A numeric column as its exact decimal text; '0' when null. */
export function toDecimalText(value: unknown): string {
  if (value === null || value === undefined) return "0";
  return String(value);
}

/** A timestamp parameter; passed as ISO text so both drivers read the same instant. */
export function ts(date: Date): SQL {
  return sql`${date.toISOString()}::timestamptz`;
}
