import { checkEngineSettings, postgresEnv, redisEnv, s3Env } from "@gateway/engines";
import { listenEnv, parseEnvWith, secret } from "@gateway/runtime";
import { z } from "zod";

/** The control plane as a process of its own: PostgreSQL (truth), Redis (write-through), S3 (captures). */
const controlPlaneEnvSchema = z
  .object({
    ...listenEnv,
    ...postgresEnv,
    ...redisEnv,
    ...s3Env,
    GATEWAY_OPERATOR_TOKEN: secret(z.string().min(16).optional()),
    /**
     * Signs pagination cursors. Set it when more than one control plane runs (a cursor from one
     * must verify on another) or cursors should survive restarts; random per start otherwise.
     */
    GATEWAY_CURSOR_SECRET: secret(z.string().min(16).optional()),
    /** JSON file of catalog models with their deployments, upserted at every start. */
    GATEWAY_CATALOG_FILE: z.string().min(1).optional(),
  })
  .superRefine(checkEngineSettings);
export type ControlPlaneEnv = z.infer<typeof controlPlaneEnvSchema>;

export const parseControlPlaneEnv = (source: Record<string, string | undefined>): ControlPlaneEnv =>
  parseEnvWith(controlPlaneEnvSchema, source);
