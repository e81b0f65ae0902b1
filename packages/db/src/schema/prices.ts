import { numeric, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * Customer prices in US dollars per million tokens, exact decimals. A price row is never
 * edited: a new row with a later `effective_from` supersedes it, and a priced call keeps the id
 * of the row it used.
 */
export const prices = pgTable(
  "prices",
  {
    id: text("id").primaryKey(),
    model: text("model").notNull(),
    effectiveFrom: timestamp("effective_from", { withTimezone: true, mode: "date" }).notNull(),
    inputUsdPerMtok: numeric("input_usd_per_mtok").notNull(),
    cacheWrite5mUsdPerMtok: numeric("cache_write_5m_usd_per_mtok").notNull(),
    cacheWrite1hUsdPerMtok: numeric("cache_write_1h_usd_per_mtok").notNull(),
    cacheReadUsdPerMtok: numeric("cache_read_usd_per_mtok").notNull(),
    outputUsdPerMtok: numeric("output_usd_per_mtok").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("prices_model_from_uq").on(t.model, t.effectiveFrom)],
);
