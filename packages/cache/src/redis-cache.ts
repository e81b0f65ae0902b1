import type { Logger } from "@gateway/contracts";
import { Redis, type RedisOptions } from "ioredis";
import { type ConfigCache, ConfigUnavailableError, noLookups, type ReadOptions } from "./config-cache.ts";

/**
 * Where Redis is: a `redis://` URL, or ioredis's options (TLS, an ACL user, Sentinel), built for
 * every connection of an app by one function (`@gateway/engines`' `redisOptions`) so that all of
 * them follow the same primary.
 */
export type RedisTarget = string | RedisOptions;

/** A connection to `target` with this connection's own `options` (timeouts, queueing) on top. */
function connectRedis(target: RedisTarget, options: RedisOptions): Redis {
  return typeof target === "string" ? new Redis(target, options) : new Redis({ ...target, ...options });
}

/**
 * Connects once (through the sentinels, if any) and leaves: at start, so that a refused login
 * or certificate is told at once. Rejects with ioredis's error; resolves with whether the server
 * runs in cluster mode (false when it may not say).
 */
export async function connectRedisOnce(target: RedisTarget): Promise<{ cluster: boolean }> {
  const redis = connectRedis(target, {
    lazyConnect: true,
    retryStrategy: () => null,
    sentinelRetryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    connectTimeout: 2_000,
  });
  // a refused handshake or login shows as an "error" event; connect() itself only says "closed"
  let refusal: Error | undefined;
  redis.on("error", (error: Error) => {
    refusal ??= error;
  });
  try {
    await redis.connect().catch((error: Error) => Promise.reject(refusal ?? error));
    const info = await redis.info("cluster").catch(() => "");
    return { cluster: /cluster_enabled:1/.test(info) };
  } finally {
    redis.disconnect();
  }
}

export interface RedisCacheOptions {
  url: RedisTarget;
  log: Logger;
  /** Longest a read waits on Redis when a local copy could answer instead (and longest a write takes). */
  timeoutMs: number;
  /**
   * Longest a read of a key with no local copy waits on Redis (at least `timeoutMs`). There is
   * nothing else to answer from, so it waits longer: a gateway that just started, or a burst of
   * new keys, is not refused over one slow read. Past it the read fails with ConfigUnavailableError.
   */
  missTimeoutMs?: number;
  /** Prefix of every key in Redis, and the invalidation channel's name. */
  namespace?: string;
  /** Resolve only once Redis answers (the control plane); a gateway starts without it. */
  waitForRedis?: boolean;
  /** With `waitForRedis`: how long to wait before failing. */
  connectWaitMs?: number;
  /**
   * A local copy older than this is read again from Redis, which wins; this bounds staleness
   * even if an invalidation were lost. While Redis is away the local copy is served regardless.
   */
  revalidateAfterMs?: number;
  maxLocalEntries?: number;
  /** After a failed read, how long reads skip Redis (and answer from the copy) before trying it again. */
  breakMs?: number;
  /** While a write is waiting to be replayed, how often to retry it without waiting for a reconnect. */
  retryWritesMs?: number;
}

interface LocalEntry {
  value: unknown;
  at: number;
  epoch: number;
}

type PendingWrite = { value: unknown } | { deleted: true };

export interface RedisConfigCache extends ConfigCache {
  /**
   * For the writer: runs `rebuild` (write every live entry) now and again whenever Redis comes
   * back after being away, and marks Redis as complete after each run. Until a mark exists,
   * readers treat Redis as away: a Redis that restarted empty never makes known keys unknown.
   */
  keepSynced(rebuild: () => Promise<void>): Promise<void>;
}

/**
 * The config cache on Redis, with a copy in each process. Writers (the control plane) write
 * through and PUBLISH the key, so every gateway drops its copy at once: a revoked key stops
 * working everywhere within milliseconds, not at a TTL. Readers (gateways) answer from their
 * copy, else from Redis within `timeoutMs`; with Redis away, a known key keeps working and a
 * never-seen key cannot be read (ConfigUnavailableError, after at most `missTimeoutMs`). A write that fails is retried every `retryWritesMs` (a slow Redis
 * may fail one without ever dropping the connection) and at once when a lost Redis returns.
 */
export async function createRedisCache(options: RedisCacheOptions): Promise<RedisConfigCache> {
  const { log, timeoutMs } = options;
  const missTimeoutMs = Math.max(options.missTimeoutMs ?? timeoutMs, timeoutMs);
  const ns = options.namespace ?? "gw:config";
  const channel = `${ns}:invalidate`;
  const syncedMark = `${ns}:synced`;
  const revalidateAfterMs = options.revalidateAfterMs ?? 30_000;
  const maxLocal = options.maxLocalEntries ?? 100_000;
  const connectWaitMs = options.connectWaitMs ?? 30_000;
  const connection = {
    // fail at once while disconnected instead of queueing: a request never waits for a reconnect
    enableOfflineQueue: false,
    // the longer bound; a read that has a copy to fall back on is cut shorter in get()
    commandTimeout: missTimeoutMs,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    retryStrategy: (times: number) => Math.min(100 * times, 1_000),
  };
  const redis = connectRedis(options.url, connection);
  const sub = connectRedis(options.url, { ...connection, commandTimeout: undefined });
  const local = new Map<string, LocalEntry>();
  const lookups = noLookups();
  const pending = new Map<string, PendingWrite>();
  // bumped when the invalidation stream may have had a gap: every copy is then re-read once
  let epoch = 0;
  let invalidations = 0;
  // Until the subscriber is connected no invalidation can reach this process, so it starts lost.
  let subscriberLost = true;
  let redisAway = false;
  let rebuild: (() => Promise<void>) | null = null;
  let skipRedisUntil = 0;
  const breakMs = options.breakMs ?? 1_000;
  const retryWritesMs = options.retryWritesMs ?? 1_000;
  let retryTimer: NodeJS.Timeout | null = null;
  let replaying: Promise<void> | null = null;
  let closed = false;

  redis.on("error", () => {});
  sub.on("error", () => {});
  redis.on("close", () => {
    if (!redisAway) log.warn("redis unreachable; serving config from the local copy");
    redisAway = true;
  });
  redis.on("ready", () => {
    void watchForSync();
    if (redisAway) log.info("redis is back");
    const wasAway = redisAway;
    redisAway = false;
    void replay().then(() => (wasAway ? resync() : undefined));
  });
  sub.on("close", () => {
    // invalidations published from now on are missed: no copy taken before the gap is trusted
    subscriberLost = true;
    epoch++;
  });
  sub.on("ready", () => {
    if (subscriberLost) epoch++;
    subscriberLost = false;
  });
  sub.on("message", (_channel: string, key: string) => {
    invalidations++;
    local.delete(key);
  });

  // Latched: once Redis has been seen complete (rebuilt, marked) with the subscription up, a reader
  // can answer any key; until then it is checked on every (re)connect and every second.
  let wasSynced = false;
  let syncTimer: NodeJS.Timeout | null = null;
  async function watchForSync() {
    if (wasSynced || closed || syncTimer) return;
    try {
      if (!subscriberLost && (await redis.get(syncedMark)) !== null) wasSynced = true;
    } catch {
      // not yet: tried again below
    }
    if (wasSynced || closed) return;
    syncTimer = setTimeout(() => {
      syncTimer = null;
      void watchForSync();
    }, 1_000);
    syncTimer.unref();
  }

  function remember(key: string, value: unknown) {
    local.delete(key);
    local.set(key, { value, at: Date.now(), epoch });
    if (local.size > maxLocal) local.delete(local.keys().next().value!);
  }

  async function write(key: string, op: PendingWrite) {
    if ("deleted" in op) await redis.del(`${ns}:${key}`);
    else await redis.set(`${ns}:${key}`, JSON.stringify(op.value));
    await redis.publish(channel, key);
  }

  // One replay at a time: the reconnect handler and the retry timer may both ask for one.
  function replay(): Promise<void> {
    replaying ??= replayPending().finally(() => {
      replaying = null;
      scheduleRetry();
    });
    return replaying;
  }

  async function replayPending() {
    for (const [key, op] of [...pending]) {
      // superseded by a later write while this loop ran: replaying it would undo the newer one
      if (pending.get(key) !== op) continue;
      try {
        await write(key, op);
        if (pending.get(key) === op) pending.delete(key);
      } catch {
        return;
      }
    }
  }

  // A write can fail on a connection that never drops (a command timeout on a slow Redis), and
  // then no 'ready' ever comes to replay it: retry on a timer for as long as anything waits.
  function scheduleRetry() {
    if (closed || retryTimer || pending.size === 0) return;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void replay();
    }, retryWritesMs);
    // the retry must not be what keeps a finished process alive
    retryTimer.unref();
  }

  async function resync() {
    if (!rebuild) return;
    try {
      await rebuild();
      await redis.set(syncedMark, new Date().toISOString());
    } catch (error) {
      log.warn("rebuilding the redis config cache failed; will retry when redis is back", {
        error,
      });
    }
  }

  async function writeThrough(key: string, op: PendingWrite) {
    // a later write of the same key supersedes one still waiting
    pending.delete(key);
    if ("deleted" in op) local.delete(key);
    else remember(key, op.value);
    try {
      await write(key, op);
    } catch (error) {
      pending.set(key, op);
      log.warn("redis write failed; will retry it", { key, error });
      scheduleRetry();
    }
  }

  // Both connections keep retrying on their own (retryStrategy); the subscription is made once
  // and ioredis renews it on every reconnect.
  const subscribed = new Promise<void>((resolve) =>
    sub.once("ready", () => void sub.subscribe(channel).then(() => resolve(), resolve)),
  );
  const ready = Promise.all([new Promise((resolve) => redis.once("ready", resolve)), subscribed]);
  if (options.waitForRedis) {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`redis did not answer within ${connectWaitMs} ms`)),
        connectWaitMs,
      );
    });
    try {
      await Promise.race([ready, gaveUp]);
    } catch (error) {
      redis.disconnect();
      sub.disconnect();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  } else {
    void Promise.race([ready, new Promise((r) => setTimeout(r, 2_000, "late"))]).then((r) => {
      if (r === "late") log.warn("redis unreachable at start; unknown keys are refused until it answers");
    });
  }

  return {
    async get<T>(key: string, options: ReadOptions = {}) {
      const copy = local.get(key);
      // Without a subscriber an invalidation would go unseen, so every read goes to Redis (bounded
      // by the timeout and the breaker below); the copy only answers when Redis does not.
      const fresh = copy && copy.epoch === epoch && Date.now() - copy.at < revalidateAfterMs;
      if (fresh && !subscriberLost) {
        lookups.local++;
        return copy.value as T;
      }
      /** Redis could not answer: the copy does, or the read fails. */
      const fromCopy = (cause: string): T => {
        if (!copy || options.freshOnly) {
          lookups.unavailable++;
          throw new ConfigUnavailableError(key, cause);
        }
        lookups.stale++;
        return copy.value as T;
      };
      // Redis just failed a read: answer from the copy without waiting again, so one request
      // waits on a hung Redis at most once, not once per key it resolves. A fresh-only reader has
      // a fallback of its own and is cut short the same way, copy or not.
      const hasFallback = copy !== undefined || options.freshOnly === true;
      if (hasFallback && Date.now() < skipRedisUntil) return fromCopy("redis failed a read just now");
      const seen = invalidations;
      const read = redis.mget(`${ns}:${key}`, syncedMark);
      let answer: (string | null)[];
      try {
        answer = hasFallback ? await within(timeoutMs, read) : await read;
      } catch (error) {
        skipRedisUntil = Date.now() + breakMs;
        return fromCopy(String(error));
      }
      const [raw, synced] = answer;
      // a Redis without the mark restarted empty and is not rebuilt yet: it knows nothing
      if (synced === null) return fromCopy("redis is not rebuilt since it restarted");
      lookups.store++;
      if (raw === null || raw === undefined) {
        local.delete(key);
        return undefined;
      }
      const value = JSON.parse(raw) as T;
      // an invalidation that raced this read may carry newer news: keep none of it
      if (seen === invalidations) remember(key, value);
      return value;
    },
    set: (key, value) => writeThrough(key, { value }),
    delete: (key) => writeThrough(key, { deleted: true }),
    async keys() {
      // SCAN, not KEYS: it does not block Redis for every other client while it walks the keyspace
      const prefix = `${ns}:`;
      const match = `${prefix.replace(/[*?[\]\\]/g, "\\$&")}*`;
      const found = new Set<string>();
      let cursor = "0";
      do {
        const [next, batch] = await redis.scan(cursor, "MATCH", match, "COUNT", 1_000);
        for (const k of batch) found.add(k.slice(prefix.length));
        cursor = next;
      } while (cursor !== "0");
      // the completeness mark lives under the same prefix but is not a config entry
      found.delete(syncedMark.slice(prefix.length));
      return [...found];
    },
    synced: () => wasSynced,
    lookups: () => lookups,
    async keepSynced(fn) {
      rebuild = fn;
      await fn();
      await redis.set(syncedMark, new Date().toISOString());
    },
    async close() {
      closed = true;
      if (syncTimer) clearTimeout(syncTimer);
      if (retryTimer) clearTimeout(retryTimer);
      retryTimer = null;
      local.clear();
      redis.disconnect();
      sub.disconnect();
    },
  };
}

/** `work`, or a rejection after `ms` (the work itself goes on; its late answer is dropped). */
function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`redis did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
