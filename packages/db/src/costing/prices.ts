import { asc, eq } from "drizzle-orm";
import type { Db } from "../client.ts";
import { prices } from "../schema/prices.ts";

export type PriceRow = typeof prices.$inferSelect;

/** Price rows by model, then `effective_from`; only `model`'s when given. */
export function listPrices(db: Db, model: string | undefined): Promise<PriceRow[]> {
  return db
    .select()
    .from(prices)
    .where(model ? eq(prices.model, model) : undefined)
    .orderBy(asc(prices.model), asc(prices.effectiveFrom));
}

/** Appends a price row; null, and nothing written, when the model has one from that instant already. */
export async function insertPrice(
  db: Db,
  price: Omit<typeof prices.$inferInsert, "createdAt">,
): Promise<PriceRow | null> {
  const [row] = await db.insert(prices).values(price).onConflictDoNothing().returning();
  return row ?? null;
}
