import type { GroupStats } from "./event-bus.ts";

/** Failed attempts after which a batch is split up into single events. */
const deliveryAttempts = 3;

/**
 * Failed attempts after which a lone event is given up. Its retries back off exponentially
 * (`retryDelayMs` doubling, about 50 s in all at the default 200 ms), so that a dependency that
 * is briefly down (the database restarting) costs a wait, not every event of the batch.
 */
const loneEventAttempts = 8;
const maxRetryDelayMs = 30_000;

export interface DeliveryOptions<T> {
  handle(batch: T[]): Promise<void>;
  /** Counts what happened, for metrics. */
  stats: DeliveryCounts;
  retryDelayMs: number;
  /** Every failed attempt, for logging. */
  onError(error: unknown): void;
  /** An event whose handler failed `loneEventAttempts` times on its own: it is skipped after this. */
  onDeadLetter(event: T, error: unknown): void;
  /**
   * Asked before every retry: false stops the delivery (the bus is closing, the partition was
   * taken away), leaving the undone events for the next delivery.
   */
  keepGoing(): Promise<boolean>;
}

type DeliveryCounts = Pick<GroupStats, "handled" | "deadLettered" | "failedAttempts">;

/**
 * Delivers `events` at least once, without letting one poison event stall the rest forever:
 * a batch that fails `deliveryAttempts` times is delivered again one event at a time, so
 * that the events that can be handled are, and only an event that fails alone
 * `loneEventAttempts` times is dead-lettered and skipped.
 *
 * Returns how many events from the start are done (handled or dead-lettered): all of them,
 * or fewer when `keepGoing` said stop. The rest must be delivered again.
 */
export async function deliver<T>(events: T[], options: DeliveryOptions<T>): Promise<number> {
  if (events.length === 0) return 0;
  const tries = async (
    batch: T[],
    attempts: number,
  ): Promise<{ ok: true } | { ok: false; error: unknown } | null> => {
    let error: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) {
        const delay = Math.min(maxRetryDelayMs, options.retryDelayMs * 2 ** (attempt - 2));
        await new Promise((r) => setTimeout(r, delay));
        if (!(await options.keepGoing())) return null;
      }
      try {
        await options.handle(batch);
        options.stats.handled += batch.length;
        return { ok: true };
      } catch (e) {
        error = e;
        options.stats.failedAttempts++;
        options.onError(e);
      }
    }
    return { ok: false, error };
  };

  const deadLetter = (event: T, error: unknown) => {
    options.stats.deadLettered++;
    options.onDeadLetter(event, error);
  };

  const whole = await tries(events, events.length === 1 ? loneEventAttempts : deliveryAttempts);
  if (whole === null) return 0;
  if (whole.ok) return events.length;
  if (events.length === 1) {
    // a lone event already failed on its own as often as isolation would try it
    deadLetter(events[0] as T, whole.error);
    return 1;
  }
  for (let done = 0; done < events.length; done++) {
    if (!(await options.keepGoing())) return done;
    const event = events[done] as T;
    const alone = await tries([event], loneEventAttempts);
    if (alone === null) return done;
    if (!alone.ok) deadLetter(event, alone.error);
  }
  return events.length;
}
