import type { Redis } from "ioredis";
import { bucketUse } from "./buckets.ts";
import type { ScopeLimits, ScopeUse } from "./limit-store.ts";
import { admitScript } from "./redis-admit-script.ts";
import { scriptPrelude, settleScript } from "./redis-settle-script.ts";

/*
 * The Redis side of `buckets.ts`, as atomic scripts: every replica's check-and-take on a call's
 * scopes happens in one step, so two gateways cannot both take the last unit. Per scope there
 * are three keys: its buckets (hash: `r` requests tat, `t` tokens tat), its slots in flight
 * (sorted set of slot names by lease expiry, each held by one replica: `replica-permits.ts`) and
 * its spend in the budget's current period (hash: `m` managed, `a` all). The admit and settle
 * scripts, with their arguments' encoding, are in `redis-admit-script.ts` and
 * `redis-settle-script.ts`.
 */

/**
 * Extends the leases of the slots a replica holds, and the life of their sets. KEYS: in-flight
 * sets; ARGV: lease ms, then one slot name per key. A slot Redis no longer has (its lease lapsed,
 * or Redis lost it) is not brought back: another replica may have taken it since. Returns the
 * (1-based) indexes of those.
 */
const renewScript = `${scriptPrelude}
local lease_ms = tonumber(ARGV[1])
local missing = {}
for i = 1, #KEYS do
  if redis.call('ZSCORE', KEYS[i], ARGV[i + 1]) then
    redis.call('ZADD', KEYS[i], now + lease_ms, ARGV[i + 1])
    redis.call('PEXPIRE', KEYS[i], lease_ms * 2)
  else
    missing[#missing + 1] = i
  end
end
return missing
`;

/**
 * This replica is alive; returns how many are. KEYS: the replicas set. ARGV: replica id,
 * how long a replica counts without a new beat.
 */
const heartbeatScript = `${scriptPrelude}
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return redis.call('ZCARD', KEYS[1])
`;

/**
 * A spend total; kept only if it is not older than the one there (a re-delivered batch or a
 * slow worker must not move spend back). KEYS: spend hash. ARGV: managed, all, ttl ms.
 */
const spendScript = `
local m, a = tonumber(ARGV[1]), tonumber(ARGV[2])
if (tonumber(redis.call('HGET', KEYS[1], 'a')) or -1) > a then return 0 end
redis.call('HSET', KEYS[1], 'm', m, 'a', a)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

type ScriptCall = (numberOfKeys: number, ...args: (string | number)[]) => Promise<unknown>;

/** The scripts of one namespace (the prefix of every key), as typed calls. */
export function limitsScripts(redis: Redis, ns: string) {
  const script = (name: string, lua: string): ScriptCall => {
    redis.defineCommand(name, { lua });
    const call = (redis as unknown as Record<string, ScriptCall>)[name]!;
    return call.bind(redis);
  };
  const admit = script("gatewayLimitsAdmit", admitScript);
  const settle = script("gatewayLimitsSettle", settleScript);
  const renew = script("gatewayLimitsRenew", renewScript);
  const heartbeat = script("gatewayLimitsHeartbeat", heartbeatScript);
  const spend = script("gatewayLimitsSpend", spendScript);
  return {
    /** `calls`: one `admitCallArgument` each; the answer is every call's numbers in a row. */
    admit: (leaseMs: number, slotTag: string, settles: string, calls: string[]) =>
      admit(0, ns, leaseMs, slotTag, settles, ...calls) as Promise<number[]>,
    /** `lines`: `settleLines`. */
    settle: (lines: string) => settle(0, ns, lines),
    /** The (1-based) indexes of the slots Redis no longer has. */
    renew: (leaseMs: number, slots: readonly { key: string; name: string }[]) =>
      renew(
        slots.length,
        ...slots.map((s) => `${ns}:f:${s.key}`),
        leaseMs,
        ...slots.map((s) => s.name),
      ) as Promise<number[]>,
    /** How many replicas are alive. */
    heartbeat: async (instanceId: string, aliveMs: number) =>
      Number(await heartbeat(1, `${ns}:replicas`, instanceId, aliveMs)),
    spend: (key: string, managedMicros: number, allMicros: number, ttlMs: number) =>
      spend(1, `${ns}:s:${key}`, managedMicros, allMicros, ttlMs),
    /** Each scope's use as its keys hold it, at Redis's time. */
    async use(scopes: readonly ScopeLimits[]): Promise<ScopeUse[]> {
      const pipeline = redis.pipeline();
      for (const s of scopes) {
        pipeline.time();
        pipeline.hmget(`${ns}:b:${s.scope}:${s.id}`, "r", "t");
        pipeline.zcount(`${ns}:f:${s.scope}:${s.id}`, `(${Date.now()}`, "+inf");
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
  };
}
export type LimitsScripts = ReturnType<typeof limitsScripts>;
