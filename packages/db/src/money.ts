/**
 * Money as integers, exactly: the SQLite store keeps costs in pico-dollars (1e-12 USD). A price
 * has at most 6 decimals of dollars per million tokens, so tokens × price is a whole number of
 * pico-dollars, and every sum of them stays whole. See docs/decisions.md, "The embedded store".
 */
const picoPerUsd = 1_000_000_000_000n;

/** Pico-dollars of a decimal string of dollars ("0.000001234567" → 1234567n); more than 12 decimals is refused. */
export function usdToPico(usd: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,12}))?$/.exec(usd);
  if (!match) throw new Error(`not a decimal of at most 12 places: ${usd}`);
  const pico = BigInt(match[2]!) * picoPerUsd + BigInt((match[3] ?? "").padEnd(12, "0"));
  return match[1] ? -pico : pico;
}

/** The shortest exact decimal text of pico-dollars ("0.0012", "3", "-1.5"), as PostgreSQL's `trim_scale` gives it. */
export function picoToUsd(pico: bigint): string {
  const sign = pico < 0n ? "-" : "";
  const abs = pico < 0n ? -pico : pico;
  const fraction = String(abs % picoPerUsd)
    .padStart(12, "0")
    .replace(/0+$/, "");
  return `${sign}${abs / picoPerUsd}${fraction ? `.${fraction}` : ""}`;
}

/** Micro-dollars of a price per million tokens: also the pico-dollars one token costs. */
export function priceToPicoPerToken(usdPerMtok: string): bigint {
  const pico = usdToPico(usdPerMtok);
  if (pico % 1_000_000n !== 0n) throw new Error(`a price has at most 6 decimals: ${usdPerMtok}`);
  return pico / 1_000_000n;
}

/**
 * Pico-dollars of a SQL sum taken as whole micro-dollars plus the rest (sql-dialect.ts, `costSums`).
 * Each part becomes a BigInt without passing through a float: a driver's integer as it came
 * (number, bigint or its digits), and a fraction is an error rather than a rounding.
 */
export function picoFromParts(micros: unknown, rest: unknown): bigint {
  return wholeNumber(micros) * 1_000_000n + wholeNumber(rest);
}

function wholeNumber(value: unknown): bigint {
  if (value === null || value === undefined) return 0n;
  if (typeof value === "bigint" || typeof value === "number" || typeof value === "string")
    return BigInt(value);
  throw new Error(`not an integer from SQL: ${String(value)}`);
}
