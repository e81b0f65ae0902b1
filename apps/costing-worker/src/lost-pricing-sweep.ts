import type { Logger } from "@gateway/contracts";
import { type Db, pendingPricingIds, priceCallsById } from "@gateway/db";

const sweepBatch = 500;

export interface LostPricingSweepOptions {
  db: Db;
  log: Logger;
  /** How often to look again for calls whose job was lost. */
  everyMs: number;
  /** Told of the calls a sweep priced (their spend is published for the budgets). */
  afterPricing(requestIds: string[]): Promise<void>;
}

/**
 * Prices the calls whose pricing job was lost: a crash between a call's insert and the enqueue,
 * or a Redis failover that lost a job the old primary had taken but not yet replicated. At start
 * every pending call is priced. After that, every `everyMs`, the calls that were already pending
 * at the sweep before: their job had a whole interval to run. A call that its job prices too is
 * not changed the second time (pricing only moves pending calls).
 */
export function lostPricingSweep({ db, log, everyMs, afterPricing }: LostPricingSweepOptions) {
  let pendingBefore = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | null = null;

  async function sweepAgain() {
    const pending = await pendingPricingIds(db, sweepBatch);
    const lost = pending.filter((id) => pendingBefore.has(id));
    pendingBefore = new Set(pending);
    if (lost.length === 0) return;
    await priceCallsById(db, lost);
    log.warn("priced calls whose pricing job was lost", { calls: lost.length });
    await afterPricing(lost);
  }

  return {
    /** Every call pending now, before the worker takes new events. */
    async atStart() {
      for (let ids = await pendingPricingIds(db, sweepBatch); ids.length > 0; ) {
        await priceCallsById(db, ids);
        const next = await pendingPricingIds(db, sweepBatch);
        // Pricing always moves a pending call on (priced or no_price); stop if it somehow did not.
        if (next.length > 0 && next[0] === ids[0]) break;
        ids = next;
      }
    },
    /** From now on, every `everyMs` (one sweep at a time). */
    repeat() {
      timer = setInterval(() => {
        sweeping ??= sweepAgain()
          .catch((error: unknown) => log.warn("sweeping for lost pricing jobs failed", { error }))
          .finally(() => {
            sweeping = null;
          });
      }, everyMs);
      // the sweep must not be what keeps a finished process alive
      timer.unref();
    },
    async close() {
      clearInterval(timer);
      await sweeping;
    },
  };
}
