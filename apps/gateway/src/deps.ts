import { join } from "node:path";
import type { EventBus } from "@gateway/bus";
import type { ConfigCache } from "@gateway/cache";
import type { Logger } from "@gateway/contracts";
import { openKafkaBus, spoolDirOf } from "@gateway/engines/kafka";
import { openRedisCache } from "@gateway/engines/redis-cache";
import { openRedisLimits } from "@gateway/engines/redis-limits";
import type { LimitStore } from "@gateway/limits";
import type { GatewayProcessEnv } from "./env.ts";

export interface GatewayProcessDeps {
  cache: ConfigCache;
  bus: EventBus;
  limits: LimitStore;
  spillDir: string;
}

/**
 * The gateway never opens PostgreSQL: configuration comes from Redis (with a local copy that
 * outlives a Redis outage) and calls leave through Kafka (with a disk spool that outlives a
 * broker outage), so neither engine being away stops it answering.
 */
export async function gatewayDeps(env: GatewayProcessEnv, log: Logger): Promise<GatewayProcessDeps> {
  const cache = await openRedisCache(env, log, "reader");
  const bus = await openKafkaBus(env, log, "gateway");
  const limits = openRedisLimits(env, log, "gateway");
  // beside the spool, under its lock: one process per dir
  return { cache, bus, limits, spillDir: join(spoolDirOf(env, "gateway"), "spill") };
}
