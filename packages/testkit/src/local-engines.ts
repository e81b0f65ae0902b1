import { readFileSync } from "node:fs";

/**
 * Where the tests find the split deployment's engines: the `GATEWAY_TEST_*` variables `.ci/run`
 * exports, else the addresses `infra/*.sh` start them on, read from infra/distributed.env (the
 * file those scripts read), so that a port is written in one place.
 */
export function localEngines(env: NodeJS.ProcessEnv = process.env) {
  const settings = distributedEnv();
  return {
    kafkaBrokers: env.GATEWAY_TEST_KAFKA_BROKERS ?? `127.0.0.1:${settings.GATEWAY_KAFKA_PORT}`,
    s3Url: env.GATEWAY_TEST_S3_URL ?? `http://127.0.0.1:${settings.GATEWAY_S3_PORT}`,
    redisUrl: env.GATEWAY_TEST_REDIS_URL ?? `redis://127.0.0.1:${settings.GATEWAY_REDIS_PORT}`,
  };
}

let read: Record<string, string> | null = null;

/** infra/distributed.env's `KEY=value` lines. */
function distributedEnv(): Record<string, string> {
  read ??= Object.fromEntries(
    readFileSync(new URL("../../../infra/distributed.env", import.meta.url), "utf8")
      .split("\n")
      .flatMap((line) => {
        const match = /^([A-Z0-9_]+)=(.*)$/.exec(line);
        return match ? [[match[1]!, match[2]!] as const] : [];
      }),
  );
  return read;
}
