import type { LimitsEntry, Logger } from "@gateway/contracts";
import { Redis } from "ioredis";
import { bucketUse } from "./buckets.ts";
import type { Admission, AdmitRequest, Lease, LimitStore, ScopeLimits } from "./limit-store.ts";
import { type LocalCounters, localCounters } from "./local-counters.ts";
import { admitScript, heartbeatScript, renewScript, settleScript, spendScript } from "./redis-scripts.ts";
import { currentPeriod, spendKey } from "./spend-keys.ts";

export interface RedisLimitsOptions {
  url: string;
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
}

const limitCodes = [null, "requests_per_minute", "tokens_per_minute", "max_concurrent", "budget"] as const;
type ScriptCall = (numberOfKeys: number, ...args: (string | number)[]) => Promise<unknown>;

/**
 * Limits shared by every gateway replica through Redis: one atomic script per call admitted and
 * one when it ends. When Redis does not answer within `timeoutMs` (or is away), calls are
 * counted in this process against its share of each limit (the limit divided by the replicas
 * seen alive at the last heartbeat), for `breakMs`, and then Redis is tried again. A budget seen
 * spent in Redis stays refused while counting locally; spend that grows meanwhile is not seen.
 */
export function createRedisLimits(options: RedisLimitsOptions): LimitStore {
  const { log, timeoutMs, namespace: ns, instanceId } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const breakMs = options.breakMs ?? 1_000;
  const redis = new Redis(options.url, {
    // fail at once while disconnected instead of queueing: a call never waits for a reconnect
    enableOfflineQueue: false,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    retryStrategy: (times: number) => Math.min(100 * times, 1_000),
  });
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
  // calls holding a slot in Redis, whose leases are renewed while they run
  const slotHolders = new Set<Lease>();
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
   * A scope as the admit script reads it (`redis-scripts.ts`): one string, not eight arguments.
   * All but the period's start is kept per limits entry, which lives as long as its config copy.
   */
  const packed = new WeakMap<LimitsEntry, string>();
  const packScope = ({ scope, id, limits }: ScopeLimits, at: number) => {
    let fixed = packed.get(limits);
    if (fixed === undefined) {
      const { rpm, tpm, concurrent, budget } = limits;
      const all = budget?.appliesTo === "all" ? 1 : 0;
      fixed = `${scope}:${id}\t${rpm ?? 0}\t${tpm ?? 0}\t${concurrent ?? 0}\t${budget?.micros ?? 0}\t${all}\t${budget?.period ?? "day"}`;
      packed.set(limits, fixed);
    }
    return limits.budget ? `${fixed}\t${currentPeriod(limits.budget.period, at).start}` : `${fixed}\t-`;
  };
  const redisFailed = (what: string, error: unknown) => {
    if (Date.now() >= skipRedisUntil)
      log.warn("limits: redis did not answer; counting this replica's share locally", {
        during: what,
        replicas,
        error,
      });
    skipRedisUntil = Date.now() + breakMs;
  };
  // Each time this replica starts counting alone it starts from spent buckets (see
  // `localCounters`): what it counted alone last time says nothing of what the others took since.
  let countingAlone = false;

  function admitLocally(request: AdmitRequest): Admission {
    if (!countingAlone) {
      countingAlone = true;
      local.reset();
    }
    const admission = local.admit(request, share);
    if (admission.ok) localLeases.add(admission.lease);
    return admission;
  }

  /**
   * Calls admitted in the same turn of the event loop go to Redis as one script (one command,
   * one reply): under load that is what keeps the gateway's CPU per call low.
   */
  interface PendingAdmit {
    request: AdmitRequest;
    at: number;
    done(admission: Admission): void;
  }
  let admits: PendingAdmit[] = [];
  /** Scopes of calls that ended this turn, settled with the turn's admits: nobody waits on them. */
  let settles: string[] = [];

  function admit(request: AdmitRequest): Promise<Admission> {
    if (!sharing()) return Promise.resolve(admitLocally(request));
    countingAlone = false;
    return new Promise((done) => {
      if (admits.length === 0 && settles.length === 0) setImmediate(flush);
      admits.push({ request, at: Date.now(), done });
    });
  }

  /** The turn's settles and admits, as one command (or the settles alone). */
  function flush() {
    const ended = settles.join("\n");
    settles = [];
    if (admits.length === 0) {
      // a settle that does not reach Redis leaves the slots to their leases and the tokens uncounted
      settleCall(0, ns, ended).catch((error: unknown) => redisFailed("settle", error));
      return;
    }
    const batch = admits;
    admits = [];
    const args: (string | number)[] = [ns, leaseMs, ended];
    for (const { request, at } of batch) {
      let call = `${request.managed ? 1 : 0}\t${request.requestId}`;
      for (const s of request.scopes) call += `\n${packScope(s, at)}`;
      args.push(call);
    }
    admitCall(0, ...args).then(
      (answer) => {
        const triples = answer as number[];
        batch.forEach((pending, i) => {
          pending.done(
            admission(pending, triples[i * 3] ?? 0, triples[i * 3 + 1] ?? 0, triples[i * 3 + 2] ?? 0),
          );
        });
      },
      (error: unknown) => {
        redisFailed("admit", error);
        for (const pending of batch) pending.done(admitLocally(pending.request));
      },
    );
  }

  function admission({ request, at }: PendingAdmit, index: number, code: number, waitMs: number): Admission {
    const lease = { requestId: request.requestId, scopes: request.scopes };
    if (index === 0) {
      if (request.scopes.some((s) => s.limits.concurrent)) slotHolders.add(lease);
      return { ok: true, lease };
    }
    const s = request.scopes[index - 1]!;
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
    slotHolders.delete(lease);
    const before = settles.length;
    for (const s of lease.scopes) {
      const tpm = s.limits.tpm ?? 0;
      if (!s.limits.concurrent && !(tpm > 0 && tokens > 0)) continue;
      settles.push(`${s.scope}:${s.id}\t${lease.requestId}\t${tpm}\t${tokens}`);
    }
    if (before === 0 && admits.length === 0 && settles.length > 0) setImmediate(flush);
  }

  const renewTimer = setInterval(() => {
    if (slotHolders.size === 0 || !sharing()) return;
    const keyArgs: string[] = [];
    const args: string[] = [];
    for (const lease of slotHolders) {
      for (const s of lease.scopes) {
        if (!s.limits.concurrent) continue;
        keyArgs.push(keys(s).flight);
        args.push(lease.requestId);
      }
    }
    renewCall(keyArgs.length, ...keyArgs, leaseMs, ...args).catch((error: unknown) =>
      redisFailed("renew", error),
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
      redis.disconnect();
    },
  };
}
