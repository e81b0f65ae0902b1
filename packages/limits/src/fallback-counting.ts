import type { BudgetPeriod } from "@gateway/contracts";
import type { Admission, AdmitRequest, Lease, ScopeLimits } from "./limit-store.ts";
import { localCounters } from "./local-counters.ts";
import type { ScopeReturn } from "./replica-permits.ts";

/**
 * How a Redis store counts while Redis is away: in this process, against `share(limit)`. Each
 * time the replica starts counting alone it starts from spent buckets (see `localCounters`):
 * what it counted alone last time says nothing of what the others took since.
 */
export function fallbackCounting(share: (limit: number) => number) {
  const local = localCounters(Date.now, { startSpent: true });
  const localLeases = new WeakSet<Lease>();
  let countingAlone = false;
  /**
   * Requests this replica admitted while counting alone, per scope, owed to the shared buckets:
   * those refilled meanwhile as if nothing were taken, so without the debt each lapse of Redis
   * let its requests through twice (83 admitted for 60 over 6 s, Redis stalling 80 ms every
   * 0.7 s). Paid ahead of the first command once Redis answers again (kept for the next try if
   * the payment fails), like any request but even past a spent bucket, by a minute of the limit
   * at most: a long outage does not block the scope for as long again.
   */
  let owed = new Map<string, ScopeReturn>();

  return {
    admit(request: AdmitRequest): Admission {
      if (!countingAlone) {
        countingAlone = true;
        local.reset();
      }
      const admission = local.admit(request, share);
      if (!admission.ok) return admission;
      localLeases.add(admission.lease);
      for (const { scope, id, limits } of request.scopes) {
        if (!limits.rpm) continue;
        const key = `${scope}:${id}`;
        const debt = owed.get(key) ?? { tpm: 0, tokens: 0, rpm: limits.rpm, requests: 0, slots: [] };
        debt.requests--;
        owed.set(key, debt);
      }
      return admission;
    },

    /** Redis counts again: the next lapse starts afresh. */
    sharing() {
      countingAlone = false;
    },

    /** Settles a call admitted here; false: it was admitted through Redis. */
    settle(lease: Lease, tokens: number): boolean {
      if (!localLeases.has(lease)) return false;
      local.settle(lease, tokens, share);
      return true;
    },

    /** A budget seen spent in Redis, which local counting also refuses from now on (spend does not shrink). */
    budgetSpent(s: ScopeLimits, period: BudgetPeriod, periodStart: string, micros: number) {
      local.publishSpend([
        { scope: s.scope, scopeId: s.id, period, periodStart, managedMicros: micros, allMicros: micros },
      ]);
    },

    /** What is owed, to pay now (null: nothing); give it back with `stillOwed` if the payment fails. */
    takeDebt(): Map<string, ScopeReturn> | null {
      if (owed.size === 0) return null;
      const paying = owed;
      owed = new Map();
      return paying;
    },

    stillOwed(paying: Map<string, ScopeReturn>) {
      for (const [key, debt] of paying) {
        const still = owed.get(key);
        if (still) still.requests += debt.requests;
        else owed.set(key, debt);
      }
    },
  };
}
