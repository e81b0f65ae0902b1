/**
 * Rates and shares are rounded once, here, to four decimals (half up); 0 when there is nothing
 * to divide. Scaling the integer numerator first keeps exact halves exact: 3/20000 is 0.0002.
 */
export function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part * 10_000) / whole) / 10_000;
}

/** Exact decimal text to a JSON number: the single rounding money goes through. */
export function usd(decimal: string): number {
  return Number(decimal);
}

/** `last_error_at`: "YYYY-MM-DD HH:MM:SS.mmm", UTC, no zone designator. */
export function spaceTimestamp(date: Date): string {
  return date.toISOString().replace("T", " ").replace("Z", "");
}
