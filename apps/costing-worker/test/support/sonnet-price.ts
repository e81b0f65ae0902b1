import { type Db, insertPrice } from "@gateway/db";

/** The price row `price_s5` of claude-sonnet-5 since 2000: $2 a million input tokens, $10 output. */
export const insertSonnetPrice = (db: Db) =>
  insertPrice(db, {
    id: "price_s5",
    model: "claude-sonnet-5",
    effectiveFrom: new Date("2000-01-01T00:00:00Z"),
    inputUsdPerMtok: "2",
    cacheWrite5mUsdPerMtok: "2.5",
    cacheWrite1hUsdPerMtok: "4",
    cacheReadUsdPerMtok: "0.2",
    outputUsdPerMtok: "10",
  });
