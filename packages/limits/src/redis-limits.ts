import { randomBytes } from "node:crypto";
import type { Logger } from "@gateway/contracts";
import type { RedisOptions } from "ioredis";
import { fallbackCounting } from "./fallback-counting.ts";
import { flushTimer } from "./flush-timer.ts";
import type { Admission, AdmitRequest, Lease, LimitStore, ScopeLimits } from "./limit-store.ts";
import { admitAnswerLength, admitCallArgument, admitGrant, admitRefusal } from "./redis-admit-script.ts";
import { connectLimits } from "./redis-connection.ts";
import { settleLines } from "./redis-settle-script.ts";
import { type ReplicaPermits, replicaPermits, type ScopeAsk, type ScopeReturn } from "./replica-permits.ts";
import { currentPeriod, spendKey } from "./spend-keys.ts";

export interface RedisLimitsOptions {
  /** A `redis://` URL, or ioredis's options (TLS, an ACL user, Sentinel: see `@gateway/engines`). */
  url: string | RedisOptions;
  log: Logger;
  /** Longest a call waits on Redis before it is counted locally instead: the config cache's timeout. */
  timeoutMs: number;
  /** Prefix of every key. */
  namespace: string;
  /**
   * This replica's name among the gateway replicas, whose count sets each one's share while Redis
   * is away; null for a process that only publishes spend or reads use (no heartbeat).
   */
  instanceId: string | null;
  /** How long a call's concurrency slot is held without renewal (a replica that died frees it then). */
  leaseMs?: number;
  /** How often a replica says it is alive; a replica silent for three beats no longer counts. */
  heartbeatMs?: number;
  /** After Redis failed, how long calls are counted locally before Redis is tried again. */
  breakMs?: number;
  /** Longest the tokens of calls that ended wait to be sent to Redis with others. */
  settleDelayMs?: number;
  /** Longest a freed concurrency slot stays held for the replica's next call before it goes back. */
  slotLingerMs?: number;
}

/**
 * Calls admitted in the same turn of the event loop go to Redis as one script (one command,
 * one reply): under load that is what keeps the gateway's CPU per call low.
 */
interface PendingAdmit {
  request: AdmitRequest;
  at: number;
  /** What the call asks of each scope. */
  asks: ScopeAsk[];
  /** Indexes of the scopes asked of Redis: the others are covered by what the replica holds. */
  sent: number[];
  done(admission: Admission): void;
}

/**
 * Limits shared by every gateway replica through Redis. A call is admitted in memory while what
 * this replica holds of each of its scopes covers it (`replica-permits.ts`); otherwise by one
 * atomic script for the calls of the same turn, which also hands the replica more to hold. When
 * Redis does not answer within `timeoutMs` (or is away), calls are counted in this process
 * against its share of each limit (the limit divided by the replicas seen alive at the last
 * heartbeat), for `breakMs`, and then Redis is tried again (`redis-connection.ts`,
 * `fallback-counting.ts`). A budget seen spent in Redis stays refused while counting locally;
 * spend that grows meanwhile is not seen.
 */
export function createRedisLimits(options: RedisLimitsOptions): LimitStore {
  const { instanceId } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const settleDelayMs = options.settleDelayMs ?? 50;
  const slotLingerMs = options.slotLingerMs ?? 5;
  const connection = connectLimits({
    ...options,
    heartbeatMs: options.heartbeatMs ?? 5_000,
    breakMs: options.breakMs ?? 1_000,
  });
  const { scripts, sharing } = connection;
  const fallback = fallbackCounting(connection.share);
  // Slots are named by process: the replica's name (spaces and tabs would break the script's
  // lists) and a nonce, since a restarted replica (the same host name, pid 1 in a container)
  // must not take over the names of slots its last life still holds.
  const slotTag = `${(instanceId ?? "anon").replace(/\s/g, "_")}~${randomBytes(4).toString("hex")}`;
  const permits: ReplicaPermits = replicaPermits(slotTag);
  const redisFailed = (what: string, error: unknown) => {
    connection.failed(what, error);
    permits.forget();
  };

  let admits: PendingAdmit[] = [];
  /**
   * What calls that ended give back, per scope: sent with the next admits, or on their own
   * within `settleDelayMs` (tokens) or `slotLingerMs` (freed slots: another replica may be
   * waiting for one).
   */
  let settles = new Map<string, ScopeReturn>();
  const flushes = flushTimer(flush);
  const scheduleFlush = flushes.schedule;

  function admit(request: AdmitRequest): Promise<Admission> {
    if (!sharing()) return Promise.resolve(fallback.admit(request));
    fallback.sharing();
    if (permits.admitHere(request))
      return Promise.resolve({ ok: true, lease: { requestId: request.requestId, scopes: request.scopes } });
    const asks = request.scopes.map((s) => permits.ask(s, request.managed, settles));
    const sent: number[] = [];
    asks.forEach((ask, i) => {
      if (ask.sent) sent.push(i);
    });
    return new Promise((done) => {
      scheduleFlush(0);
      admits.push({ request, at: Date.now(), asks, sent, done });
    });
  }

  /** The settles waiting, as one argument. */
  function takeSettles(): string {
    const ended = settleLines(settles);
    settles = new Map();
    return ended;
  }

  /**
   * Sends what this replica owes (`fallback-counting.ts`) ahead of its next command, which Redis
   * then runs after it; kept for the next try if it does not get there.
   */
  function payDebt() {
    if (!sharing()) return;
    const paying = fallback.takeDebt();
    if (!paying) return;
    scripts.settle(settleLines(paying)).catch((error: unknown) => {
      redisFailed("settle", error);
      fallback.stillOwed(paying);
    });
  }

  /** The settles and admits waiting, as one command (or the settles alone). */
  function flush() {
    payDebt();
    permits.takeReleases(settles);
    const ended = takeSettles();
    if (admits.length === 0) {
      // a settle that does not reach Redis leaves the slots to their leases and the tokens uncounted
      if (ended) scripts.settle(ended).catch((error: unknown) => redisFailed("settle", error));
      return;
    }
    const batch = admits;
    admits = [];
    const calls = batch.map(({ request, at, asks, sent }) => admitCallArgument(request, at, asks, sent));
    scripts.admit(leaseMs, slotTag, ended, calls).then(
      (answer) => {
        let offset = 0;
        for (const pending of batch) {
          pending.done(admission(pending, answer, offset));
          offset += admitAnswerLength(pending.sent.length);
        }
      },
      (error: unknown) => {
        redisFailed("admit", error);
        for (const pending of batch) {
          giveBack(pending, -1);
          pending.done(fallback.admit(pending.request));
        }
      },
    );
  }

  /** A call not admitted through Redis: what it took of the replica's holds goes back. */
  function giveBack({ request, asks }: PendingAdmit, refusedBy: number) {
    for (const [i, s] of request.scopes.entries()) permits.refused(s, asks[i]!, i === refusedBy);
  }

  /** One call's answer, from `offset` in the script's numbers; what was granted is kept. */
  function admission(pending: PendingAdmit, answer: number[], offset: number): Admission {
    const { request, at } = pending;
    const refusal = admitRefusal(answer, offset);
    if (refusal === null) {
      pending.sent.forEach((i, j) => {
        permits.granted(request.scopes[i]!, pending.asks[i]!, admitGrant(answer, offset, j));
      });
      return { ok: true, lease: { requestId: request.requestId, scopes: request.scopes } };
    }
    const refusedBy = pending.sent[refusal.sentIndex]!;
    giveBack(pending, refusedBy);
    const s = request.scopes[refusedBy]!;
    const { limit } = refusal;
    if (limit === "budget") return refuseBudget(s, at);
    const value =
      limit === "tokens_per_minute"
        ? s.limits.tpm
        : limit === "max_concurrent"
          ? s.limits.concurrent
          : s.limits.rpm;
    return {
      ok: false,
      refusal: { scope: s.scope, scopeId: s.id, limit, value: value ?? 0, retryAfterMs: refusal.waitMs },
    };
  }

  /** A spent budget, which local counting also refuses from now on. */
  function refuseBudget(s: ScopeLimits, at: number): Admission {
    const budget = s.limits.budget!;
    const period = currentPeriod(budget.period, at);
    fallback.budgetSpent(s, budget.period, period.start, budget.micros);
    return {
      ok: false,
      refusal: {
        scope: s.scope,
        scopeId: s.id,
        limit: "budget",
        value: budget.micros,
        retryAfterMs: period.endsInMs,
      },
    };
  }

  function settle(lease: Lease, tokens: number) {
    if (fallback.settle(lease, tokens)) return;
    const given = permits.ended(lease, tokens, settles);
    if (given !== "nothing") scheduleFlush(given === "slots" ? slotLingerMs : settleDelayMs);
  }

  const renewTimer = setInterval(() => {
    // what no call uses goes back first: a replica idle for a while holds nothing
    if (permits.releaseIdle(settles)) scheduleFlush(0);
    const renew = permits.renewals();
    if (renew.length === 0 || !sharing()) return;
    scripts.renew(leaseMs, renew).then(
      (missing) => permits.lost(missing.map((i) => renew[i - 1]!)),
      (error: unknown) => redisFailed("renew", error),
    );
  }, leaseMs / 3);
  renewTimer.unref();

  return {
    admit,
    settle,
    async publishSpend(totals) {
      const at = Date.now();
      await Promise.all(
        totals.map((t) => {
          const period = currentPeriod(t.period, at);
          // kept a day past its period's end, whatever the period
          const ttlMs = period.endsInMs + 86_400_000;
          const key = spendKey(t.scope, t.scopeId, t.period, t.periodStart);
          return scripts.spend(key, t.managedMicros, t.allMicros, ttlMs);
        }),
      );
    },
    use: (scopes) => scripts.use(scopes),
    counting: () => (sharing() ? "shared" : "local_fallback"),
    async close() {
      clearInterval(renewTimer);
      connection.stopBeating();
      flushes.cancel();
      // calls still waiting (none after a drain) are counted here: Redis is going away
      for (const pending of admits) {
        giveBack(pending, -1);
        pending.done(fallback.admit(pending.request));
      }
      admits = [];
      // the last calls' tokens, and every slot and request held, go back to Redis (else the
      // slots would wait for their leases to lapse)
      permits.releaseIdle(settles, true);
      const ended = takeSettles();
      if (ended && sharing()) await scripts.settle(ended).catch(() => {});
      connection.disconnect();
    },
  };
}
