import type { Logger } from "@gateway/contracts";
import {
  budgetSpendTotals,
  type Db,
  type ReceivedWithin,
  type SpendScope,
  scopesOfCalls,
  spendTotals,
} from "@gateway/db";
import type { LimitStore } from "@gateway/limits";

/** How often every budgeted scope's totals are published again (a Redis that restarted empty). */
const republishEveryMs = 60_000;

export interface SpendPublisher {
  /**
   * After a pricing job committed: the totals of the key, project and workload of its calls,
   * read from the database, so a redelivered job publishes the same totals again. Never throws.
   */
  afterPricing(requestIds: readonly string[], within?: ReceivedWithin): Promise<void>;
  /** The same for scopes known without reading the calls (the all-in-one's batch, priced as stored). */
  afterSpending(scopes: readonly SpendScope[]): Promise<void>;
  /** The totals of every scope with a budget. Never throws. */
  publishBudgets(): Promise<void>;
  /** Stops the republishing and waits for a publish under way. */
  close(): Promise<void>;
}

const scopeKey = (s: SpendScope) => `${s.scope}:${s.id}`;

/**
 * Feeds the gateway's budgets with the spend pricing wrote. Totals are absolute, so publishing
 * again is harmless. Publishes run one at a time, each reading then publishing, so a slower,
 * older read never lands after a newer one of this process. A failed publish is logged and its
 * scopes are read and published again with the next job's; a successful full republish covers
 * them too, since only scopes with a budget matter to the gateway. Every budget is published
 * again every `everyMs`, the first time after that long: publish them at start yourself.
 */
export function startSpendPublisher(
  { db, limits, log }: { db: Db; limits: LimitStore; log: Logger },
  everyMs = republishEveryMs,
): SpendPublisher {
  let pending = new Map<string, SpendScope>();
  const failed = (what: string, scopes: Iterable<SpendScope>, error: unknown) => {
    for (const s of scopes) pending.set(scopeKey(s), s);
    log.error("publishing spend failed; retried with the next batch", { what, error });
  };
  let queue: Promise<void> = Promise.resolve();
  const inTurn = (work: () => Promise<void>) => {
    queue = queue.then(work);
    return queue;
  };

  const publishScopes = (spentIn: () => Promise<readonly SpendScope[]>) =>
    inTurn(async () => {
      const scopes = pending;
      pending = new Map();
      try {
        for (const s of await spentIn()) scopes.set(scopeKey(s), s);
        await limits.publishSpend(await spendTotals(db, [...scopes.values()], new Date()));
      } catch (error) {
        failed("priced calls", scopes.values(), error);
      }
    });

  const publisher: SpendPublisher = {
    afterPricing: (requestIds, within) => publishScopes(() => scopesOfCalls(db, requestIds, within)),
    afterSpending: (spentIn) => publishScopes(async () => spentIn),
    publishBudgets: () =>
      inTurn(async () => {
        try {
          await limits.publishSpend(await budgetSpendTotals(db, new Date()));
          pending = new Map();
        } catch (error) {
          failed("budgets", [], error);
        }
      }),
    async close() {
      clearInterval(timer);
      await queue;
    },
  };
  const timer = setInterval(() => void publisher.publishBudgets(), everyMs);
  // the worker's consumers keep its process running, not this
  timer.unref();
  return publisher;
}
