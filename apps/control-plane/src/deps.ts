import type { Logger } from "@gateway/contracts";
import { type DbHandle, runMigrations } from "@gateway/db";
import { openBullmqQueue } from "@gateway/engines/bullmq";
import { openPostgres } from "@gateway/engines/postgres";
import { openRedisCache } from "@gateway/engines/redis-cache";
import { openRedisLimits } from "@gateway/engines/redis-limits";
import { openS3BlobStore } from "@gateway/engines/s3";
import type { ControlPlaneEnv } from "./env.ts";
import { buildServices } from "./services/build-services.ts";
import type { Services } from "./services/context.ts";
import { seedPricesAndQueueRepricing } from "./services/price-seed.ts";

export interface ControlPlaneDeps {
  services: Services;
  /** Startup work that several replicas must do once (see `DbHandle.exclusive`). */
  exclusive: DbHandle["exclusive"];
  close(): Promise<void>;
}

/**
 * PostgreSQL is the source of truth; the control plane migrates it and then rebuilds the Redis
 * config cache from it (`syncAll`), at start and whenever Redis returns from an outage, so a
 * Redis that lost its data is whole again without anyone restarting anything. It enqueues
 * re-pricing on the costing worker's BullMQ queues (same Redis, same namespace) and runs no job.
 */
export async function controlPlaneDeps(env: ControlPlaneEnv, log: Logger): Promise<ControlPlaneDeps> {
  const store = await openPostgres(env);
  const jobs = await openBullmqQueue(env, log);
  await store.exclusive(async () => {
    await runMigrations(store);
    await seedPricesAndQueueRepricing(store.db, jobs);
  });
  const cache = await openRedisCache(env, log, "writer");
  const blobs = await openS3BlobStore(env, log);
  // read for the limits-status report's current use
  const limits = openRedisLimits(env, log, "control-plane");
  const services = buildServices(
    { db: store.db, cache, blobs, log, limits, jobs },
    { cursorSecret: env.GATEWAY_CURSOR_SECRET, operatorToken: env.GATEWAY_OPERATOR_TOKEN },
  );
  // again whenever Redis comes back, in case it came back empty
  await cache.keepSynced(() => services.sync.syncAll(store.db));
  return {
    services,
    exclusive: (work) => store.exclusive(work),
    async close() {
      blobs.close();
      await limits.close();
      await cache.close();
      await jobs.close();
      await store.close();
    },
  };
}
