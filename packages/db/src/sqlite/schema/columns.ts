import { microsToUsd, usdToMicros } from "@gateway/contracts";
import { sql } from "drizzle-orm";
import { customType, integer } from "drizzle-orm/sqlite-core";
import { picoNumberToUsd, picoToUsd, usdToPico, usdToPicoNumber } from "../../money.ts";

/**
 * Column kinds of the SQLite schema that read and write the same JS values as their PostgreSQL
 * twins, so the rows the named functions return are the same on both stores.
 */

/** `timestamptz`: integer milliseconds since the epoch, UTC, read as a `Date`. */
export const instant = (name: string) => integer(name, { mode: "timestamp_ms" });

/** `timestamptz ... default now()`: the database's clock, in milliseconds. */
export const createdAt = (name: string) =>
  instant(name).notNull().default(sql`(cast(unixepoch('subsec') * 1000 as integer))`);

export const flag = (name: string) => integer(name, { mode: "boolean" });

/** `numeric` money: an INTEGER of pico-dollars, read as the shortest exact decimal text. */
export const picoUsd = customType<{ data: string; driverData: number | bigint }>({
  dataType: () => "integer",
  toDriver(usd) {
    const small = usdToPicoNumber(usd);
    if (small !== null) return small;
    const pico = usdToPico(usd);
    // an integer beyond 2^53 is bound as a bigint, so it reaches the database exactly
    return pico <= BigInt(Number.MAX_SAFE_INTEGER) && pico >= -BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(pico)
      : pico;
  },
  fromDriver: (pico) => (typeof pico === "number" ? picoNumberToUsd(pico) : picoToUsd(BigInt(pico))),
});

/** A budget: an INTEGER of micro-dollars (budgets have at most 6 decimals), read as decimal text. */
export const microUsd = customType<{ data: string; driverData: number }>({
  dataType: () => "integer",
  toDriver: (usd) => usdToMicros(usd),
  fromDriver: (micros) => microsToUsd(micros),
});
