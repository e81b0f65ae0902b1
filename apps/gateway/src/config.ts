import { logEnv } from "@gateway/runtime";
import { z } from "zod";

/** Gateway settings, parsed once from the environment by the app that starts the gateway. */
export const gatewayEnvSchema = z.object({
  GATEWAY_PROVIDER_A_URL: z.url().default("https://api.anthropic.com"),
  GATEWAY_PROVIDER_B_URL: z.url().default("https://api.openai.com"),
  GATEWAY_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  /**
   * Bytes of one answer a call holds in memory while it streams, when the answer is kept (captured,
   * or a JSON body whose usage is read at its end); past them it is kept on disk (docs/decisions.md).
   */
  GATEWAY_ANSWER_MEMORY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  GATEWAY_CONNECT_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Until the upstream's response headers; non-streaming generations send them only when done. */
  GATEWAY_FIRST_BYTE_TIMEOUT_MS: z.coerce.number().int().positive().default(600_000),
  /** Longest silence between two chunks of a response body. */
  GATEWAY_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(300_000),
  /**
   * One `access` log line per call (no key, body or prompt). Off by default: measured at up to a
   * fifth more gateway CPU per call (bench/RESULTS.md, "The access log").
   */
  GATEWAY_ACCESS_LOG: z
    .enum(["true", "false", "1", "0"])
    .default("false")
    .transform((v) => v === "true" || v === "1"),
  ...logEnv,
});

/** The operator's provider-B key for `/v1/responses` and `/v1/responses/compact`, read by this name. */
export const responsesKeyEnv = "GATEWAY_PROVIDER_B_MANAGED_KEY";

export interface GatewayConfig {
  providerAUrl: string;
  providerBUrl: string;
  /** The largest request accepted, and the most of an answer kept. */
  maxBodyBytes: number;
  answerMemoryBytes: number;
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
  accessLog: boolean;
}

export function gatewayConfigFromEnv(env: z.infer<typeof gatewayEnvSchema>): GatewayConfig {
  return {
    providerAUrl: env.GATEWAY_PROVIDER_A_URL.replace(/\/+$/, ""),
    providerBUrl: env.GATEWAY_PROVIDER_B_URL.replace(/\/+$/, ""),
    maxBodyBytes: env.GATEWAY_MAX_BODY_BYTES,
    answerMemoryBytes: env.GATEWAY_ANSWER_MEMORY_BYTES,
    connectTimeoutMs: env.GATEWAY_CONNECT_TIMEOUT_MS,
    firstByteTimeoutMs: env.GATEWAY_FIRST_BYTE_TIMEOUT_MS,
    idleTimeoutMs: env.GATEWAY_IDLE_TIMEOUT_MS,
    accessLog: env.GATEWAY_ACCESS_LOG,
  };
}
