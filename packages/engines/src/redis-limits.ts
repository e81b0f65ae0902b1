import { hostname } from "node:os";
import type { Logger } from "@gateway/contracts";
import type { LimitStore } from "@gateway/limits";
import { createRedisLimits } from "@gateway/limits/redis";
import type { RedisEnv } from "./env.ts";
import { redisOptions } from "./redis-options.ts";

/**
 * Limits counted in Redis, shared by every replica, beside the config keys; a call waits on it no
 * longer than on the config cache (`GATEWAY_REDIS_TIMEOUT_MS`) before this replica counts alone.
 * Only gateways count as replicas; the costing worker publishes spend, the control plane reads use.
 */
export function openRedisLimits(
  env: RedisEnv & { GATEWAY_INSTANCE_ID?: string | undefined },
  log: Logger,
  app: "gateway" | "costing-worker" | "control-plane",
): LimitStore {
  return createRedisLimits({
    url: redisOptions(env),
    log,
    timeoutMs: env.GATEWAY_REDIS_TIMEOUT_MS,
    namespace: `${env.GATEWAY_REDIS_NAMESPACE}:limits`,
    instanceId: app === "gateway" ? (env.GATEWAY_INSTANCE_ID ?? `${app}-${hostname()}-${process.pid}`) : null,
  });
}
