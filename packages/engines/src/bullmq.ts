import type { Logger } from "@gateway/contracts";
import type { JobQueue } from "@gateway/jobs";
import { createBullmqQueue } from "@gateway/jobs/bullmq";
import type { RedisEnv } from "./env.ts";
import { checkRedisAccess, redisOptions } from "./redis-options.ts";

/** Stops at start when Redis refuses the app (`checkRedisAccess`). */
export async function openBullmqQueue(env: RedisEnv, log: Logger): Promise<JobQueue> {
  await checkRedisAccess(env, log);
  return createBullmqQueue({
    url: redisOptions(env),
    log,
    prefix: `${env.GATEWAY_REDIS_NAMESPACE}:jobs`,
    onDeadLetter: (letter) => log.error("job failed for good", { name: letter.name, error: letter.error }),
  });
}
