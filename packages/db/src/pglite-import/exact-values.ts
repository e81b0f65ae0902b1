import type { Column } from "drizzle-orm";
import { priceToPicoPerToken } from "../money.ts";

/** A decimal without the zeros PostgreSQL's `numeric` keeps at its end ("0.300000" → "0.3", "2.000" → "2"). */
function shortestDecimal(text: string): string {
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

/**
 * The value a PostgreSQL `numeric` becomes on SQLite, or an error saying why it cannot become it
 * exactly. A price stays the text it was written as, if it has at most 6 decimals (the rule that
 * makes both stores cost alike); money becomes integer pico- or micro-dollars, and is refused
 * when the integer, read back, is not the same number (a cost finer than a pico-dollar, a budget
 * finer than a micro-dollar), since the SQLite encoders would round it silently.
 */
export function exactMoney(text: string, sqliteColumn: Column): string {
  if (sqliteColumn.getSQLType() === "text") {
    // as written when SQLite's pricing reads it; shortened only past the 12 places it reads
    for (const price of [text, shortestDecimal(text)]) {
      try {
        priceToPicoPerToken(price);
        return price;
      } catch {}
    }
    throw new Error(`a price has at most 6 decimals on SQLite: ${text}`);
  }
  const value = shortestDecimal(text);
  let readBack: unknown;
  try {
    readBack = sqliteColumn.mapFromDriverValue(sqliteColumn.mapToDriverValue(value));
  } catch {
    readBack = null;
  }
  if (typeof readBack !== "string" || shortestDecimal(readBack) !== value)
    throw new Error(
      `${text} is finer than SQLite's integer money (pico-dollars; micro-dollars for a budget)`,
    );
  return value;
}
