import { z } from "zod";
import { logEnv } from "./logger.ts";
import { metricsEnv } from "./metrics.ts";

/**
 * Parses `source` (the process environment) once, failing with one readable message that names
 * every bad variable. An empty variable (`FOO=` in a compose file or a shell) means "not set".
 */
export function parseEnvWith<T extends z.ZodType>(
  schema: T,
  source: Record<string, string | undefined>,
): z.output<T> {
  const set = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const parsed = schema.safeParse(set);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`Invalid configuration:\n${problems}`);
  }
  return parsed.data;
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
