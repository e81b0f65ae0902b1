import { z } from "zod";
import { logEnv } from "./logger.ts";
import { metricsEnv } from "./metrics.ts";
import { isSecret, withSecretFiles } from "./secret-files.ts";

/**
 * Parses `source` (the process environment) once, failing with one readable message that names
 * every bad variable, one line each. An empty variable (`FOO=` in a compose file or a shell) means
 * "not set". A setting marked `secret` may be given as `<NAME>_FILE` instead (`withSecretFiles`).
 */
export function parseEnvWith<T extends z.ZodType>(
  schema: T,
  source: Record<string, string | undefined>,
): z.output<T> {
  const set = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const secrets = schema instanceof z.ZodObject ? secretNames(schema) : [];
  const files = withSecretFiles(set, secrets);
  const parsed = schema.safeParse(files.source);
  const problems = [
    ...files.problems.values(),
    // a setting whose file failed is reported once, for its file
    ...(parsed.success ? [] : parsed.error.issues)
      .filter((i) => !files.problems.has(String(i.path[0])))
      .map((i) => `${i.path.join(".")}: ${i.message}`),
  ];
  if (problems.length > 0)
    throw new Error(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join("\n")}`);
  return parsed.data as z.output<T>;
}

function secretNames(schema: z.ZodObject): string[] {
  return Object.entries(schema.shape)
    .filter(([, setting]) => isSecret(setting as z.ZodType))
    .map(([name]) => name);
}

/** On SIGTERM/SIGINT, for every app that serves HTTP (see `stopServing`). */
export const drainEnv = {
  /**
   * How long the app keeps serving after `/readyz` turns 503 and before it stops listening: at
   * least a load balancer's health-check interval times its fall count.
   */
  GATEWAY_DRAIN_DELAY_MS: z.coerce.number().int().nonnegative().default(0),
  /** How long in-flight work may take to finish once the app stopped listening. */
  GATEWAY_DRAIN_TIMEOUT_MS: z.coerce.number().int().nonnegative().default(30_000),
};

/** What every app of the split deployment listens with: its port, logs, metrics and drain. */
export const listenEnv = {
  ...logEnv,
  ...metricsEnv,
  ...drainEnv,
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default("127.0.0.1"),
};

/** `listenEnv` with the app's own default port: the consumers' probe listeners. */
export const probeListenEnv = (defaultPort: number) => ({
  ...listenEnv,
  PORT: listenEnv.PORT.unwrap().default(defaultPort),
});

export type ListenEnv = z.infer<z.ZodObject<typeof listenEnv>>;

/** The retention job of the costing worker and the capture writer (docs/operations.md "Retention"). */
export const retentionEnv = {
  /** How often the job runs (it also runs at start): partitions made ahead, expired data removed. */
  GATEWAY_RETENTION_EVERY_MS: z.coerce.number().int().min(1_000).default(3_600_000),
};
