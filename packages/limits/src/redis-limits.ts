import { randomBytes } from "node:crypto";
import type { LimitsEntry, Logger } from "@gateway/contracts";
import { Redis, type RedisOptions } from "ioredis";
import { bucketUse } from "./buckets.ts";
import type { Admission, AdmitRequest, Lease, LimitStore, ScopeLimits } from "./limit-store.ts";
import { type LocalCounters, localCounters } from "./local-counters.ts";
import { admitScript, heartbeatScript, renewScript, settleScript, spendScript } from "./redis-scripts.ts";
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

const limitCodes = [null, "requests_per_minute", "tokens_per_minute", "max_concurrent", "budget"] as const;
type ScriptCall = (numberOfKeys: number, ...args: (string | number)[]) => Promise<unknown>;

/**
 * Limits shared by every gateway replica through Redis. A call is admitted in memory while what
 * this replica holds of each of its scopes covers it (`replica-permits.ts`); otherwise by one
 * atomic script for the calls of the same turn, which also hands the replica more to hold. When
 * Redis does not answer within `timeoutMs` (or is away), calls are counted in this process
 * against its share of each limit (the limit divided by the replicas seen alive at the last
 * heartbeat), for `breakMs`, and then Redis is tried again. A budget seen spent in Redis stays
 * refused while counting locally; spend that grows meanwhile is not seen.
 */
export function createRedisLimits(options: RedisLimitsOptions): LimitStore {
  const { log, timeoutMs, namespace: ns, instanceId } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const breakMs = options.breakMs ?? 1_000;
  const settleDelayMs = options.settleDelayMs ?? 50;
  const slotLingerMs = options.slotLingerMs ?? 5;
  const own: RedisOptions = {
    // fail at once while disconnected instead of queueing: a call never waits for a reconnect
    enableOfflineQueue: false,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    retryStrategy: (times: number) => Math.min(100 * times, 1_000),
  };
  const redis =
    typeof options.url === "string" ? new Redis(options.url, own) : new Redis({ ...options.url, ...own });
  redis.on("error", () => {});
  const script = (name: string, lua: string): ScriptCall => {
    redis.defineCommand(name, { lua });
    const call = (redis as unknown as Record<string, ScriptCall>)[name]!;
    return call.bind(redis);
  };
  const admitCall = script("gatewayLimitsAdmit", admitScript);
  const settleCall = script("gatewayLimitsSettle", settleScript);
  const renewCall = script("gatewayLimitsRenew", renewScript);
  const heartbeatCall = script("gatewayLimitsHeartbeat", heartbeatScript);
  const spendCall = script("gatewayLimitsSpend", spendScript);

  const local: LocalCounters = localCounters(Date.now, { startSpent: true });
  const localLeases = new WeakSet<Lease>();
  // Slots are named by process: the replica's name (spaces and tabs would break the script's
  // lists) and a nonce, since a restarted replica (the same host name, pid 1 in a container)
  // must not take over the names of slots its last life still holds.
  const slotTag = `${(instanceId ?? "anon").replace(/\s/g, "_")}~${randomBytes(4).toString("hex")}`;
  const permits: ReplicaPermits = replicaPermits(slotTag);
  let replicas = 1;
  let counts: number[] = [];
  let skipRedisUntil = 0;
  const share = (limit: number) => Math.max(1, Math.floor(limit / replicas));
  // not connected (yet, or any more): counted locally at once, without waiting on a command
  const sharing = () => redis.status === "ready" && Date.now() >= skipRedisUntil;

  const keys = (s: { scope: string; id: string }) => ({
    buckets: `${ns}:b:${s.scope}:${s.id}`,
    flight: `${ns}:f:${s.scope}:${s.id}`,
  });
  /**
   * A scope as the admit script reads it (`redis-scripts.ts`): one string, not eleven arguments.
   * All but the period's start and the slot numbers is kept per limits entry, which lives as
   * long as its config copy.
   */
  const packed = new WeakMap<LimitsEntry, string>();
  const packScope = ({ scope, id, limits }: ScopeLimits, at: number, ask: ScopeAsk) => {
    let fixed = packed.get(limits);
    if (fixed === undefined) {
      const { rpm, tpm, concurrent, budget } = limits;
      const all = budget?.appliesTo === "all" ? 1 : 0;
      fixed = `${scope}:${id}\t${rpm ?? 0}\t${tpm ?? 0}\t${concurrent ?? 0}\t${budget?.micros ?? 0}\t${all}\t${budget?.period ?? "day"}`;
      packed.set(limits, fixed);
    }
    const start = limits.budget ? currentPeriod(limits.budget.period, at).start : "-";
    return `${fixed}\t${start}\t${ask.requests}\t${ask.slots}\t${ask.slotBase}`;
  };
  const redisFailed = (what: string, error: unknown) => {
    if (Date.now() >= skipRedisUntil)
      log.warn("limits: redis did not answer; counting this replica's share locally", {
        during: what,
        replicas,
        error,
      });
    skipRedisUntil = Date.now() + breakMs;
    permits.forget();
  };
  // Each time this replica starts counting alone it starts from spent buckets (see
  // `localCounters`): what it counted alone last time says nothing of what the others took since.
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

  function admitLocally(request: AdmitRequest): Admission {
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
  let admits: PendingAdmit[] = [];
  /**
   * What calls that ended give back, per scope: sent with the next admits, or on their own
   * within `settleDelayMs` (tokens) or `slotLingerMs` (freed slots: another replica may be
   * waiting for one).
   */
  let settles = new Map<string, ScopeReturn>();
  let flushSoon: NodeJS.Immediate | undefined;
  let flushLater: NodeJS.Timeout | undefined;
  let flushLaterAt = 0;
  /** A flush within `delayMs` (0: this turn), unless one is due sooner. */
  const scheduleFlush = (delayMs: number) => {
    if (flushSoon !== undefined) return;
    const at = Date.now() + delayMs;
    if (delayMs > 0 && flushLater !== undefined && flushLaterAt <= at) return;
    clearTimeout(flushLater);
    flushLater = undefined;
    if (delayMs === 0) flushSoon = setImmediate(flush);
    else {
      flushLaterAt = at;
      flushLater = setTimeout(flush, delayMs);
    }
  };

  function admit(request: AdmitRequest): Promise<Admission> {
    if (!sharing()) return Promise.resolve(admitLocally(request));
    countingAlone = false;
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

  /** Returns as the scripts read them (`settle` in `redis-scripts.ts`). */
  function settleLines(returns: Map<string, ScopeReturn>): string {
    let lines = "";
    for (const [key, back] of returns) {
      lines += `${lines ? "\n" : ""}${key}\t${back.tpm}\t${back.tokens}\t${back.rpm}\t${back.requests}`;
      if (back.slots.length > 0) lines += `\t${back.slots.join(" ")}`;
    }
    return lines;
  }

  /** The settles waiting, as one argument. */
  function takeSettles(): string {
    const ended = settleLines(settles);
    settles = new Map();
    return ended;
  }

  /**
   * Sends what this replica owes (`owed`) ahead of its next command, which Redis then runs after
   * it; kept for the next try if it does not get there.
   */
  function payDebt() {
    if (owed.size === 0 || !sharing()) return;
    const paying = owed;
    owed = new Map();
    settleCall(0, ns, settleLines(paying)).catch((error: unknown) => {
      redisFailed("settle", error);
      for (const [key, debt] of paying) {
        const still = owed.get(key);
        if (still) still.requests += debt.requests;
        else owed.set(key, debt);
      }
    });
  }

  /** The settles and admits waiting, as one command (or the settles alone). */
  function flush() {
    clearImmediate(flushSoon);
    flushSoon = undefined;
    clearTimeout(flushLater);
    flushLater = undefined;
    payDebt();
    permits.takeReleases(settles);
    const ended = takeSettles();
    if (admits.length === 0) {
      // a settle that does not reach Redis leaves the slots to their leases and the tokens uncounted
      if (ended) settleCall(0, ns, ended).catch((error: unknown) => redisFailed("settle", error));
      return;
    }
    const batch = admits;
    admits = [];
    const args: (string | number)[] = [ns, leaseMs, slotTag, ended];
    for (const { request, at, asks, sent } of batch) {
      let call = request.managed ? "1" : "0";
      for (const i of sent) call += `\n${packScope(request.scopes[i]!, at, asks[i]!)}`;
      args.push(call);
    }
    admitCall(0, ...args).then(
      (answer) => {
        const numbers = answer as number[];
        let offset = 0;
        for (const pending of batch) {
          pending.done(admission(pending, numbers, offset));
          offset += 3 + 4 * pending.sent.length;
        }
      },
      (error: unknown) => {
        redisFailed("admit", error);
        for (const pending of batch) {
          giveBack(pending, -1);
          pending.done(admitLocally(pending.request));
        }
      },
    );
  }

  /** A call not admitted through Redis: what it took of the replica's holds goes back. */
  function giveBack({ request, asks }: PendingAdmit, refusedBy: number) {
    for (const [i, s] of request.scopes.entries()) permits.refused(s, asks[i]!, i === refusedBy);
  }

  /** One call's answer, from `offset` in the script's numbers; what was granted is kept. */
  function admission(pending: PendingAdmit, numbers: number[], offset: number): Admission {
    const { request, at } = pending;
    const index = numbers[offset] ?? 0;
    const code = numbers[offset + 1] ?? 0;
    const waitMs = numbers[offset + 2] ?? 0;
    if (index === 0) {
      pending.sent.forEach((i, j) => {
        const from = offset + 3 + j * 4;
        permits.granted(request.scopes[i]!, pending.asks[i]!, {
          requests: numbers[from] ?? 0,
          tokenRoom: numbers[from + 1] ?? -1,
          slots: numbers[from + 2] ?? 0,
          budgetRemaining: numbers[from + 3] ?? -1,
        });
      });
      return { ok: true, lease: { requestId: request.requestId, scopes: request.scopes } };
    }
    const refusedBy = pending.sent[index - 1]!;
    giveBack(pending, refusedBy);
    const s = request.scopes[refusedBy]!;
    const limit = limitCodes[code] ?? "requests_per_minute";
    if (limit === "budget") return refuseBudget(s, at);
    const value =
      limit === "tokens_per_minute"
        ? s.limits.tpm
        : limit === "max_concurrent"
          ? s.limits.concurrent
          : s.limits.rpm;
    return {
      ok: false,
      refusal: { scope: s.scope, scopeId: s.id, limit, value: value ?? 0, retryAfterMs: waitMs },
    };
  }

  /** A spent budget, which local counting also refuses from now on (spend does not shrink). */
  function refuseBudget(s: ScopeLimits, at: number): Admission {
    const budget = s.limits.budget!;
    const period = currentPeriod(budget.period, at);
    local.publishSpend([
      {
        scope: s.scope,
        scopeId: s.id,
        period: budget.period,
        periodStart: period.start,
        managedMicros: budget.micros,
        allMicros: budget.micros,
      },
    ]);
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
    if (localLeases.has(lease)) return local.settle(lease, tokens, share);
    const given = permits.ended(lease, tokens, settles);
    if (given !== "nothing") scheduleFlush(given === "slots" ? slotLingerMs : settleDelayMs);
  }

  const renewTimer = setInterval(() => {
    // what no call uses goes back first: a replica idle for a while holds nothing
    if (permits.releaseIdle(settles)) scheduleFlush(0);
    const renew = permits.renewals();
    if (renew.length === 0 || !sharing()) return;
    renewCall(
      renew.length,
      ...renew.map((r) => `${ns}:f:${r.key}`),
      leaseMs,
      ...renew.map((r) => r.name),
    ).then(
      (missing) => permits.lost((missing as number[]).map((i) => renew[i - 1]!)),
      (error: unknown) => redisFailed("renew", error),
    );
  }, leaseMs / 3);
  renewTimer.unref();

  const beat = () =>
    heartbeatCall(1, `${ns}:replicas`, instanceId!, heartbeatMs * 3)
      .then((count) => {
        // the most seen over the last three beats: a Redis that restarted empty holds only the
        // replicas that beat since, and a share is safer too small than too large
        counts = [...counts.slice(-2), Number(count)];
        replicas = Math.max(1, ...counts);
      })
      .catch(() => {
        // the count stays what it was last seen: that is the share counted locally meanwhile
      });
  let heartbeatTimer: NodeJS.Timeout | undefined;
  if (instanceId !== null) {
    void beat();
    heartbeatTimer = setInterval(beat, heartbeatMs);
    heartbeatTimer.unref();
  }

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
          return spendCall(
            1,
            `${ns}:s:${spendKey(t.scope, t.scopeId, t.period, t.periodStart)}`,
            t.managedMicros,
            t.allMicros,
            ttlMs,
          );
        }),
      );
    },
    async use(scopes) {
      const pipeline = redis.pipeline();
      for (const s of scopes) {
        const k = keys(s);
        pipeline.time();
        pipeline.hmget(k.buckets, "r", "t");
        pipeline.zcount(k.flight, `(${Date.now()}`, "+inf");
      }
      const results = (await pipeline.exec()) ?? [];
      return scopes.map((s, i) => {
        const [seconds, micros] = (results[i * 3]?.[1] as [string, string]) ?? ["0", "0"];
        const at = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
        const [r, t] = (results[i * 3 + 1]?.[1] as (string | null)[]) ?? [null, null];
        return {
          scope: s.scope,
          id: s.id,
          requests: s.limits.rpm ? bucketUse(Number(r ?? 0), at, s.limits.rpm) : 0,
          tokens: s.limits.tpm ? bucketUse(Number(t ?? 0), at, s.limits.tpm) : 0,
          concurrent: Number(results[i * 3 + 2]?.[1] ?? 0),
        };
      });
    },
    counting: () => (sharing() ? "shared" : "local_fallback"),
    async close() {
      clearInterval(renewTimer);
      clearInterval(heartbeatTimer);
      clearImmediate(flushSoon);
      clearTimeout(flushLater);
      flushSoon = flushLater = undefined;
      // calls still waiting (none after a drain) are counted here: Redis is going away
      for (const pending of admits) {
        giveBack(pending, -1);
        pending.done(admitLocally(pending.request));
      }
      admits = [];
      // the last calls' tokens, and every slot and request held, go back to Redis (else the
      // slots would wait for their leases to lapse)
      permits.releaseIdle(settles, true);
      const ended = takeSettles();
      if (ended && sharing()) await settleCall(0, ns, ended).catch(() => {});
      redis.disconnect();
    },
  };
}
