import { createRedisCache, type RedisConfigCache } from "@gateway/cache/redis";
import type { Logger } from "@gateway/contracts";
import type { RedisEnv } from "./env.ts";
import { checkRedisAccess, redisOptions } from "./redis-options.ts";

/**
 * `reader`: a gateway (local copy, short timeout, longer for keys it has no copy of, starts
 * without Redis). `writer`: the control plane (waits for Redis at start, a longer timeout for
 * its writes). Either stops at start when Redis refuses the app (`checkRedisAccess`).
 */
export async function openRedisCache(
  env: RedisEnv,
  log: Logger,
  role: "reader" | "writer",
): Promise<RedisConfigCache> {
  await checkRedisAccess(env, log);
  return createRedisCache({
    url: redisOptions(env),
    log,
    timeoutMs:
      role === "reader" ? env.GATEWAY_REDIS_TIMEOUT_MS : Math.max(env.GATEWAY_REDIS_TIMEOUT_MS, 2_000),
    missTimeoutMs: env.GATEWAY_REDIS_MISS_TIMEOUT_MS,
    waitForRedis: role === "writer",
    namespace: `${env.GATEWAY_REDIS_NAMESPACE}:config`,
  });
}
