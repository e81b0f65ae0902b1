import { join } from "node:path";
import { type EngineSet, ownKafka, sharedStores } from "./engine-sets.ts";
import { infra } from "./processes.ts";

/**
 * The secured Redis set of the failover test (infra/secure/redis.sh: a primary, a replica and
 * three sentinels, TLS only, ACL users) on ports of its own, 64xxx: no other suite uses them.
 * Sentinels on base + 1..3.
 */
const redisPorts = {
  SECURE_REDIS_PRIMARY_PORT: "64379",
  SECURE_REDIS_REPLICA_PORT: "64380",
  SECURE_REDIS_SENTINEL_PORT_BASE: "64380",
};

export interface SentinelRedisEngines extends EngineSet {
  /** The env infra/secure/redis.sh runs with (its ports, its SECURE_DIR), for kill-primary, primary, cli. */
  redisEnv: Record<string, string>;
}

/**
 * The split deployment's engines with Redis behind Sentinel: every app reaches Redis as the
 * ACL user over TLS (the throwaway CA the script makes in `work`), through the sentinels only.
 * Kafka is a plain one of the deployment's own; PostgreSQL and S3 the shared ones.
 */
export async function sentinelRedisEngines(work: string, run: string): Promise<SentinelRedisEngines> {
  // its own throwaway CA, also where .ci/run exported the default set's (SECURE_CA_DIR)
  const redisEnv = {
    ...redisPorts,
    SECURE_DIR: join(work, "secure"),
    SECURE_CA_DIR: join(work, "secure", "ca"),
  };
  const [stores, kafka] = await Promise.all([
    sharedStores(run),
    ownKafka(work),
    infra("secure/redis", "start", redisEnv),
  ]);
  // KEY=value lines, read as lines (engines.sh says not to source them)
  const secure = Object.fromEntries(
    (await infra("secure/engines", "env", redisEnv)).split("\n").map((line) => {
      const at = line.indexOf("=");
      return [line.slice(0, at), line.slice(at + 1)];
    }),
  ) as Record<string, string>;
  return {
    redisEnv,
    sql: stores.sql,
    env: {
      ...stores.env,
      ...kafka.env,
      GATEWAY_REDIS_SENTINELS: secure.SECURE_REDIS_SENTINELS!,
      GATEWAY_REDIS_SENTINEL_MASTER: secure.SECURE_REDIS_MASTER_NAME!,
      GATEWAY_REDIS_SENTINEL_PASSWORD: secure.SECURE_REDIS_SENTINEL_PASSWORD!,
      GATEWAY_REDIS_USERNAME: secure.SECURE_REDIS_USER!,
      GATEWAY_REDIS_PASSWORD: secure.SECURE_REDIS_PASSWORD!,
      GATEWAY_REDIS_TLS: "true",
      GATEWAY_REDIS_CA_FILE: join(secure.SECURE_CA_DIR!, "ca.crt"),
      // the ACL user's keys and channels are gw:* only: the default namespace, on a Redis of its own
      GATEWAY_REDIS_NAMESPACE: "gw",
      // Over TLS on a loaded 2-core machine, the default 50 ms made a gateway count its limits
      // alone now and then, which the shared-rate measurement after the failover cannot count on.
      // (A dead primary fails commands at once: calls do not wait on this.)
      GATEWAY_REDIS_TIMEOUT_MS: "250",
    },
    async stop() {
      await Promise.all([kafka.stop(), infra("secure/redis", "stop", redisEnv)]);
      await stores.stop();
    },
  };
}
