import type { Logger } from "@gateway/contracts";
import { createBullmqQueue, type JobQueue } from "@gateway/jobs";
import type { RedisEnv } from "./env.ts";
import { redisOptions } from "./redis-options.ts";

export function openBullmqQueue(env: RedisEnv, log: Logger): JobQueue {
  return createBullmqQueue({
    url: redisOptions(env),
    log,
    prefix: `${env.GATEWAY_REDIS_NAMESPACE}:jobs`,
    onDeadLetter: (letter) => log.error("job failed for good", { name: letter.name, error: letter.error }),
  });
}
