import type { BudgetAppliesTo, BudgetPeriod, LimitName, LimitsEntry, SpendTotal } from "@gateway/contracts";
import { bucketUse, minuteMs, spendTokens, takeRequest, tokensWaitMs } from "./buckets.ts";
import type { Admission, AdmitRequest, Lease, ScopeLimits, ScopeUse } from "./limit-store.ts";
import { currentPeriod } from "./spend-keys.ts";

interface ScopeState {
  /** `tat` of the requests bucket (ms since the epoch). */
  requests: number;
  tokens: number;
  /** Request ids of the calls in flight. */
  inFlight: Set<string>;
}

interface PeriodSpend {
  start: string;
  managed: number;
  all: number;
}

/** A concurrency refusal has no instant at which a slot frees: the caller tries again in a second. */
const concurrencyRetryMs = 1_000;

/**
 * Limits counted in this process's memory: the all-in-one process's store, and what a Redis
 * store counts with while Redis is away, against `share(limit)` (its part of each limit). With
 * `startSpent`, a scope first seen starts with its buckets spent rather than full: a replica
 * that begins counting alone cannot know what the others took, so it allows no burst.
 */
export function localCounters(now: () => number = Date.now, { startSpent = false } = {}) {
  const states = new Map<string, ScopeState>();
  // one entry per scope and period kind: a new period's total replaces the last one
  const spend = new Map<string, PeriodSpend>();
  // `at` is the caller's instant: a second clock read here could be a millisecond later and
  // start a spent bucket beyond the full minute the caller measures against
  const stateOf = (s: { scope: string; id: string }, at: number) => {
    const key = `${s.scope}:${s.id}`;
    let state = states.get(key);
    if (!state) {
      // a spent bucket admits at the sustained rate only, never a burst
      const tat = startSpent ? at + minuteMs : 0;
      state = { requests: tat, tokens: tat, inFlight: new Set() };
      states.set(key, state);
    }
    return state;
  };
  const spent = (s: ScopeLimits, period: BudgetPeriod, start: string, appliesTo: BudgetAppliesTo) => {
    const total = spend.get(`${s.scope}:${s.id}:${period}`);
    if (total?.start !== start) return 0;
    return appliesTo === "managed" ? total.managed : total.all;
  };

  return {
    /** Forgets every count (spend excepted): the next counting alone starts from spent buckets. */
    reset() {
      states.clear();
    },

    admit(request: AdmitRequest, share: (limit: number) => number = (limit) => limit): Admission {
      const at = now();
      const refuse = (s: ScopeLimits, limit: LimitName, value: number, retryAfterMs: number): Admission => ({
        ok: false,
        refusal: { scope: s.scope, scopeId: s.id, limit, value, retryAfterMs },
      });
      const requestTats: number[] = [];
      for (const [i, s] of request.scopes.entries()) {
        const { rpm, tpm, concurrent, budget } = s.limits;
        const state = stateOf(s, at);
        if (budget && (budget.appliesTo === "all" || request.managed)) {
          const period = currentPeriod(budget.period, at);
          if (spent(s, budget.period, period.start, budget.appliesTo) >= budget.micros)
            return refuse(s, "budget", budget.micros, period.endsInMs);
        }
        if (rpm) {
          const taken = takeRequest(state.requests, at, share(rpm));
          if ("waitMs" in taken) return refuse(s, "requests_per_minute", rpm, taken.waitMs);
          requestTats[i] = taken.tat;
        }
        if (tpm) {
          const waitMs = tokensWaitMs(state.tokens, at, share(tpm));
          if (waitMs > 0) return refuse(s, "tokens_per_minute", tpm, waitMs);
        }
        if (concurrent && state.inFlight.size >= share(concurrent))
          return refuse(s, "max_concurrent", concurrent, concurrencyRetryMs);
      }
      // every limit allows the call: only now does it take from any of them
      for (const [i, s] of request.scopes.entries()) {
        const state = stateOf(s, at);
        const tat = requestTats[i];
        if (tat !== undefined) state.requests = tat;
        if (s.limits.concurrent) state.inFlight.add(request.requestId);
      }
      return { ok: true, lease: { requestId: request.requestId, scopes: request.scopes } };
    },

    settle(lease: Lease, tokens: number, share: (limit: number) => number = (limit) => limit) {
      const at = now();
      for (const s of lease.scopes) {
        const state = stateOf(s, at);
        state.inFlight.delete(lease.requestId);
        if (s.limits.tpm && tokens > 0)
          state.tokens = spendTokens(state.tokens, at, share(s.limits.tpm), tokens);
      }
    },

    publishSpend(totals: readonly SpendTotal[]) {
      for (const t of totals) {
        const key = `${t.scope}:${t.scopeId}:${t.period}`;
        const known = spend.get(key);
        // a late total (of an earlier period, or lower than the one held) must not move spend back
        if (
          known &&
          (known.start > t.periodStart || (known.start === t.periodStart && known.all > t.allMicros))
        )
          continue;
        spend.set(key, { start: t.periodStart, managed: t.managedMicros, all: t.allMicros });
      }
    },

    use(scopes: readonly { scope: ScopeLimits["scope"]; id: string; limits: LimitsEntry }[]): ScopeUse[] {
      const at = now();
      return scopes.map((s) => {
        const state = states.get(`${s.scope}:${s.id}`);
        return {
          scope: s.scope,
          id: s.id,
          requests: state && s.limits.rpm ? bucketUse(state.requests, at, s.limits.rpm) : 0,
          tokens: state && s.limits.tpm ? bucketUse(state.tokens, at, s.limits.tpm) : 0,
          concurrent: state?.inFlight.size ?? 0,
        };
      });
    },
  };
}
