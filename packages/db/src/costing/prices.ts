import { asc, eq } from "drizzle-orm";
import type { Db } from "../client.ts";
import { query } from "../dialect.ts";
import type { prices } from "../schema/prices.ts";

export type PriceRow = typeof prices.$inferSelect;

/** Price rows by model, then `effective_from`; only `model`'s when given. */
export async function listPrices(db: Db, model: string | undefined): Promise<PriceRow[]> {
  return query(db, (orm, t) =>
    orm
      .select()
      .from(t.prices)
      .where(model ? eq(t.prices.model, model) : undefined)
      .orderBy(asc(t.prices.model), asc(t.prices.effectiveFrom)),
  );
}

/** Appends a price row; null, and nothing written, when the model has one from that instant already. */
export async function insertPrice(
  db: Db,
  price: Omit<typeof prices.$inferInsert, "createdAt">,
): Promise<PriceRow | null> {
  const [row] = await query(db, (orm, t) =>
    orm.insert(t.prices).values(price).onConflictDoNothing().returning(),
  );
  return row ?? null;
}
