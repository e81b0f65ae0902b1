/**
 * The arithmetic of every limit, shared by the in-process counters and mirrored by the Redis
 * scripts (`redis-admit-script.ts`, `redis-settle-script.ts`). A per-minute limit of N is a
 * bucket of N that refills at N per minute, kept as one number (GCRA): the theoretical arrival
 * time `tat`, the instant at which the bucket would be full again. Used = (tat - now) / (60 s / N). Like the providers' own
 * limits, an idle scope may send N at once, and sustained traffic gets N per minute.
 */
export const minuteMs = 60_000;

/** A request against a requests-per-minute bucket: the new `tat`, or how long until one fits. */
export function takeRequest(tat: number, now: number, limit: number): { tat: number } | { waitMs: number } {
  const next = Math.max(tat, now) + minuteMs / limit;
  return next - now <= minuteMs ? { tat: next } : { waitMs: Math.ceil(next - now - minuteMs) };
}

/**
 * Tokens are known only after the answer, so a call is admitted while the bucket has any room
 * left, and its tokens are spent after it (`spendTokens`), which may take the bucket into debt:
 * then calls wait until the debt has refilled.
 */
export function tokensWaitMs(tat: number, now: number, limit: number): number {
  const over = tat - now - minuteMs;
  return over >= 0 ? Math.ceil(over + minuteMs / limit) : 0;
}

export function spendTokens(tat: number, now: number, limit: number, tokens: number): number {
  return Math.max(tat, now) + (tokens * minuteMs) / limit;
}

/** Units the bucket holds as used at `now` (at most the limit, more only in token debt). */
export function bucketUse(tat: number, now: number, limit: number): number {
  return Math.max(0, Math.ceil(((tat - now) * limit) / minuteMs));
}
