import type { Logger } from "@gateway/contracts";
import { Redis, type RedisOptions } from "ioredis";
import { type LimitsScripts, limitsScripts } from "./redis-scripts.ts";

export interface LimitsConnectionOptions {
  /** A `redis://` URL, or ioredis's options (TLS, an ACL user, Sentinel: see `@gateway/engines`). */
  url: string | RedisOptions;
  log: Logger;
  timeoutMs: number;
  namespace: string;
  instanceId: string | null;
  heartbeatMs: number;
  breakMs: number;
}

/**
 * The limits store's Redis: its scripts, whether calls are counted in it now (`sharing`), and
 * this replica's share of a limit while they are not. A command that failed (`failed`) keeps
 * calls away from Redis for `breakMs`; a replica with an `instanceId` beats every `heartbeatMs`,
 * and the replicas seen alive set its share.
 */
export function connectLimits(options: LimitsConnectionOptions) {
  const { log, instanceId, heartbeatMs, breakMs } = options;
  const own: RedisOptions = {
    // fail at once while disconnected instead of queueing: a call never waits for a reconnect
    enableOfflineQueue: false,
    commandTimeout: options.timeoutMs,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    retryStrategy: (times: number) => Math.min(100 * times, 1_000),
  };
  const redis =
    typeof options.url === "string" ? new Redis(options.url, own) : new Redis({ ...options.url, ...own });
  redis.on("error", () => {});
  const scripts: LimitsScripts = limitsScripts(redis, options.namespace);
  let replicas = 1;
  let counts: number[] = [];
  let skipRedisUntil = 0;

  const beat = () =>
    scripts
      .heartbeat(instanceId!, heartbeatMs * 3)
      .then((count) => {
        // the most seen over the last three beats: a Redis that restarted empty holds only the
        // replicas that beat since, and a share is safer too small than too large
        counts = [...counts.slice(-2), count];
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
    scripts,
    /** Not connected (yet, or any more), or in a break after a failure: count locally at once. */
    sharing: () => redis.status === "ready" && Date.now() >= skipRedisUntil,
    /** This replica's part of a limit while it counts alone. */
    share: (limit: number) => Math.max(1, Math.floor(limit / replicas)),
    /** A command did not get an answer in time: calls are counted locally for `breakMs`. */
    failed(what: string, error: unknown) {
      if (Date.now() >= skipRedisUntil)
        log.warn("limits: redis did not answer; counting this replica's share locally", {
          during: what,
          replicas,
          error,
        });
      skipRedisUntil = Date.now() + breakMs;
    },
    /** No more beats: the replica is leaving (it disconnects once its last settle went out). */
    stopBeating() {
      clearInterval(heartbeatTimer);
    },
    disconnect() {
      redis.disconnect();
    },
  };
}
