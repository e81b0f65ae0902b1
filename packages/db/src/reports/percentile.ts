/**
 * The nearest-rank percentile `q` (0 < q <= 1) of a histogram of counts by value: the smallest
 * value with at least ceil(q x n) of the n counted at or below it. Null when nothing is counted.
 */
export function percentile(histogram: Map<number, number>, q: number): number | null {
  let total = 0;
  for (const n of histogram.values()) total += n;
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (const value of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(value)!;
    if (seen >= rank) return value;
  }
  return null;
}
