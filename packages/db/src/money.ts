/**
 * Money as integers, exactly: the SQLite store keeps costs in pico-dollars (1e-12 USD). A price
 * has at most 6 decimals of dollars per million tokens, so tokens × price is a whole number of
 * pico-dollars, and every sum of them stays whole. See docs/decisions.md, "The embedded store".
 */
const picoPerUsd = 1_000_000_000_000n;

/** Pico-dollars of a decimal string of dollars ("0.000001234567" → 1234567n); more than 12 decimals is refused. */
export function usdToPico(usd: string): bigint {
  const small = usdToPicoNumber(usd);
  if (small !== null) return BigInt(small);
  const match = /^(-?)(\d+)(?:\.(\d{1,12}))?$/.exec(usd);
  if (!match) throw new Error(`not a decimal of at most 12 places: ${usd}`);
  const pico = BigInt(match[2]!) * picoPerUsd + BigInt((match[3] ?? "").padEnd(12, "0"));
  return match[1] ? -pico : pico;
}

/** 10^(12 - places): what a fraction of `places` decimals is multiplied by to count pico-dollars. */
const fractionScale = Array.from({ length: 13 }, (_, places) => 10 ** (12 - places));

/**
 * `usdToPico` as a Number, for amounts under $1,000 (a call's cost, a price per million tokens),
 * whose pico-dollars (< 10^15) a Number holds exactly: read digit by digit, without the regular
 * expression and the BigInts, which were ~5 % of the all-in-one's CPU on a streamed call (five
 * costs, their spend and rollups, each written as text and read back). Null for a larger amount
 * or text that is not such a decimal; `usdToPico` then reads it, or refuses it.
 */
export function usdToPicoNumber(usd: string): number | null {
  const negative = usd.charCodeAt(0) === 45; // "-"
  let at = negative ? 1 : 0;
  let whole = 0;
  const wholeFrom = at;
  for (; at < usd.length; at++) {
    const digit = usd.charCodeAt(at) - 48;
    if (digit < 0 || digit > 9) break;
    whole = whole * 10 + digit;
  }
  const wholeDigits = at - wholeFrom;
  if (wholeDigits === 0 || wholeDigits > 3) return null;
  let fraction = 0;
  let places = 0;
  if (at < usd.length) {
    if (usd.charCodeAt(at) !== 46) return null; // "."
    for (at++; at < usd.length; at++, places++) {
      const digit = usd.charCodeAt(at) - 48;
      if (digit < 0 || digit > 9 || places === 12) return null;
      fraction = fraction * 10 + digit;
    }
    if (places === 0) return null;
  }
  const pico = whole * 1e12 + fraction * fractionScale[places]!;
  return negative && pico !== 0 ? -pico : pico;
}

const maxSafe = BigInt(Number.MAX_SAFE_INTEGER);

/** The shortest exact decimal text of pico-dollars ("0.0012", "3", "-1.5"), as PostgreSQL's `trim_scale` gives it. */
export function picoToUsd(pico: bigint): string {
  if (pico <= maxSafe && pico >= -maxSafe) return picoNumberToUsd(Number(pico));
  const sign = pico < 0n ? "-" : "";
  const abs = pico < 0n ? -pico : pico;
  return `${sign}${abs / picoPerUsd}${fractionText(String(abs % picoPerUsd))}`;
}

/** `picoToUsd` of pico-dollars that are a whole Number within ±(2^53 - 1), without a BigInt: `%` and the division are exact there. */
export function picoNumberToUsd(pico: number): string {
  if (!Number.isSafeInteger(pico)) throw new Error(`not a whole number of pico-dollars: ${pico}`);
  const abs = Math.abs(pico);
  const fraction = abs % 1e12;
  return `${pico < 0 ? "-" : ""}${(abs - fraction) / 1e12}${fractionText(String(fraction))}`;
}

/** ".0012" for the digits "1200000000" of pico-dollars below a dollar; "" for none. */
function fractionText(digits: string): string {
  if (digits === "0") return "";
  let end = 12;
  const padded = digits.padStart(12, "0");
  while (padded.charCodeAt(end - 1) === 48) end--;
  return `.${padded.slice(0, end)}`;
}

const picoPerTokenOf = new Map<string, bigint>();

/**
 * Micro-dollars of a price per million tokens: also the pico-dollars one token costs. Remembered
 * by text (a catalog has a few hundred distinct prices; the memory is dropped past 4,096), since
 * every priced call reads up to five of them.
 */
export function priceToPicoPerToken(usdPerMtok: string): bigint {
  const known = picoPerTokenOf.get(usdPerMtok);
  if (known !== undefined) return known;
  const pico = usdToPico(usdPerMtok);
  if (pico % 1_000_000n !== 0n) throw new Error(`a price has at most 6 decimals: ${usdPerMtok}`);
  if (picoPerTokenOf.size >= 4096) picoPerTokenOf.clear();
  const perToken = pico / 1_000_000n;
  picoPerTokenOf.set(usdPerMtok, perToken);
  return perToken;
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
