import { priceToPicoPerToken } from "../money.ts";

/** A call's token counts and its price row's prices per million tokens (decimal text); null where there is none. */
export interface CostInputs {
  input_tokens: number | null;
  w5m: number | null;
  w1h: number | null;
  read: number | null;
  output: number | null;
  p_in: string | null;
  p_w5m: string | null;
  p_w1h: string | null;
  p_read: string | null;
  p_out: string | null;
}

/** tokens × price in pico-dollars; null when either is (SQL's null arithmetic, as on PostgreSQL). */
const times = (tokens: number | null, price: string | null) =>
  tokens === null || price === null ? null : BigInt(tokens) * priceToPicoPerToken(price);
const plus = (...parts: (bigint | null)[]) =>
  parts.some((p) => p === null) ? null : parts.reduce<bigint>((a, b) => a + b!, 0n);

/**
 * A call's cost under its price, in pico-dollars per category (the formula: costing/pricing.ts),
 * exact in BigInt: SQLite's pricing and the all-in-one's pricing at insert compute it here.
 */
export function costOf(t: CostInputs) {
  const uncached = times(t.input_tokens, t.p_in);
  const write = plus(times(t.w5m, t.p_w5m), times(t.w1h, t.p_w1h));
  const read = times(t.read, t.p_read);
  const output = times(t.output, t.p_out);
  return { uncached, write, read, output, total: plus(uncached, write, read, output) };
}
