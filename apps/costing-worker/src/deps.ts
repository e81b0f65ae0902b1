import type { Logger } from "@gateway/contracts";
import { openBullmqQueue } from "@gateway/engines/bullmq";
import { openKafkaBus } from "@gateway/engines/kafka";
import { openPostgres } from "@gateway/engines/postgres";
import { openRedisLimits } from "@gateway/engines/redis-limits";
import type { CostingWorkerDeps } from "./costing-worker.ts";
import type { CostingWorkerEnv } from "./env.ts";

/**
 * Env → adapters: BullMQ on Redis runs the pricing jobs, and the spend they price is published to
 * the gateways' limits in Redis. The tables are the control plane's to migrate.
 */
export async function costingWorkerDeps(
  env: CostingWorkerEnv,
  log: Logger,
): Promise<{ deps: CostingWorkerDeps; close(): Promise<void> }> {
  const store = await openPostgres(env);
  const jobs = await openBullmqQueue(env, log);
  const bus = await openKafkaBus(env, log, "costing-worker");
  const limits = openRedisLimits(env, log, "costing-worker");
  return {
    deps: { db: store.db, bus, jobs, log, limits, retentionEveryMs: env.GATEWAY_RETENTION_EVERY_MS },
    async close() {
      await bus.close();
      await jobs.close();
      await limits.close();
      await store.close();
    },
  };
}
