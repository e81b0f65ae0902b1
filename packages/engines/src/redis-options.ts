import { connectRedisOnce, type RedisTarget } from "@gateway/cache/redis";
import type { Logger } from "@gateway/contracts";
import { EngineRefusedError, refusalOf } from "./engine-access.ts";
import type { RedisEnv } from "./env.ts";

type RedisOptions = Exclude<RedisTarget, string>;

/**
 * The one place every Redis connection of an app is described (the config cache and its
 * subscriber, the limits, BullMQ's), so that all of them reach the same Redis the same way and,
 * with Sentinel, all follow a failover to the new primary.
 */
export function redisOptions(env: RedisEnv): RedisOptions {
  const url = env.GATEWAY_REDIS_URL ? new URL(env.GATEWAY_REDIS_URL) : null;
  const tls = url ? url.protocol === "rediss:" : env.GATEWAY_REDIS_TLS === true;
  const trust = env.GATEWAY_REDIS_CA_FILE ? { ca: env.GATEWAY_REDIS_CA_FILE } : {};
  const username =
    env.GATEWAY_REDIS_USERNAME ?? (url?.username ? decodeURIComponent(url.username) : undefined);
  const password =
    env.GATEWAY_REDIS_PASSWORD ?? (url?.password ? decodeURIComponent(url.password) : undefined);
  const common: RedisOptions = {
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    ...(tls ? { tls: trust } : {}),
    // a primary demoted to a replica answers writes with READONLY: reconnect, to the new primary
    reconnectOnError: (error) => error.message.startsWith("READONLY"),
  };
  if (url)
    return {
      ...common,
      host: url.hostname.replace(/^\[|\]$/g, ""),
      port: Number(url.port || 6379),
      db: Number(url.pathname.slice(1) || 0),
    };
  const sentinelTls = env.GATEWAY_REDIS_SENTINEL_TLS ?? tls;
  return {
    ...common,
    sentinels: (env.GATEWAY_REDIS_SENTINELS ?? []).map((hostPort) => {
      const at = hostPort.lastIndexOf(":");
      return { host: hostPort.slice(0, at), port: Number(hostPort.slice(at + 1)) };
    }),
    name: env.GATEWAY_REDIS_SENTINEL_MASTER,
    ...(env.GATEWAY_REDIS_SENTINEL_USERNAME ? { sentinelUsername: env.GATEWAY_REDIS_SENTINEL_USERNAME } : {}),
    ...(env.GATEWAY_REDIS_SENTINEL_PASSWORD ? { sentinelPassword: env.GATEWAY_REDIS_SENTINEL_PASSWORD } : {}),
    ...(sentinelTls ? { sentinelTLS: trust } : {}),
    enableTLSForSentinelMode: tls,
    // No failoverDetector: its connections to the sentinels have no error listener, and ioredis
    // prints "Unhandled error event" for each TLS teardown. A lost primary drops the connections,
    // which reconnect through the sentinels; a demoted one answers READONLY (above).
  };
}

/**
 * Asks Redis once whether it takes this app, at start: a refusal (certificate, TLS, login) or a
 * Redis Cluster throws `EngineRefusedError`; a Redis that is away is not waited for here. With
 * Sentinel the sentinels are asked first, one by one: ioredis swallows a sentinel's refusal
 * (its TLS error, its WRONGPASS) and reports only "all sentinels are unreachable".
 */
export async function checkRedisAccess(env: RedisEnv, log: Logger): Promise<void> {
  const options = redisOptions(env);
  if (options.sentinels && !(await checkSentinelAccess(env, options, log))) return;
  const setting = env.GATEWAY_REDIS_SENTINELS ? "GATEWAY_REDIS_SENTINELS" : "GATEWAY_REDIS_URL";
  const answer = await connectRedisOnce(options).catch((error: unknown) => {
    const refusal = refusalOf(error);
    if (!refusal) return log.warn("redis unreachable at start", { error: String(error) });
    throw new EngineRefusedError(
      {
        untrusted: `GATEWAY_REDIS_CA_FILE: Redis's certificate is not trusted (${refusal.why})`,
        tls: `GATEWAY_REDIS_CA_FILE: Redis refused the TLS handshake (${refusal.why})`,
        login: `GATEWAY_REDIS_PASSWORD: Redis refused the login${env.GATEWAY_REDIS_USERNAME ? ` of ${env.GATEWAY_REDIS_USERNAME}` : ""} (${refusal.why})`,
      }[refusal.kind],
    );
  });
  if (answer?.cluster)
    throw new EngineRefusedError(
      `${setting}: this Redis runs in cluster mode, which the apps do not support (their scripts and BullMQ touch several keys at once, with no hash tags); use a primary with replicas behind Sentinel (GATEWAY_REDIS_SENTINELS)`,
    );
}

/**
 * The sentinels, one after another until one answers: true once one did, false when none could
 * be reached (left to the app's riding out); a refusal throws `EngineRefusedError`.
 */
async function checkSentinelAccess(env: RedisEnv, options: RedisOptions, log: Logger): Promise<boolean> {
  for (const { host, port } of options.sentinels ?? []) {
    const sentinel: RedisOptions = {
      host,
      port,
      ...(options.sentinelUsername ? { username: options.sentinelUsername } : {}),
      ...(options.sentinelPassword ? { password: options.sentinelPassword } : {}),
      ...(options.sentinelTLS ? { tls: options.sentinelTLS } : {}),
    };
    const error = await connectRedisOnce(sentinel).then(
      () => null,
      (e: unknown) => e,
    );
    if (!error) return true;
    const refusal = refusalOf(error);
    if (!refusal) {
      log.warn("redis sentinel unreachable at start", { sentinel: `${host}:${port}`, error: String(error) });
      continue;
    }
    throw new EngineRefusedError(
      {
        untrusted: `GATEWAY_REDIS_CA_FILE: the sentinels' certificate is not trusted (${refusal.why})`,
        tls: `GATEWAY_REDIS_SENTINEL_TLS: the sentinels refused the TLS handshake (${refusal.why})`,
        login: `GATEWAY_REDIS_SENTINEL_PASSWORD: the sentinels refused the login${env.GATEWAY_REDIS_SENTINEL_USERNAME ? ` of ${env.GATEWAY_REDIS_SENTINEL_USERNAME}` : ""} (${refusal.why})`,
      }[refusal.kind],
    );
  }
  return false;
}
