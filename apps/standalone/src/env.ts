import { checkEngineSettings, postgresEnv } from "@gateway/engines";
import { gatewayEnvSchema } from "@gateway/gateway";
import { drainEnv, metricsEnv, parseEnvWith, retentionEnv, secret } from "@gateway/runtime";
import { z } from "zod";

/** Every setting of the one-process deployment, validated once at start. */
const standaloneEnvSchema = gatewayEnvSchema
  .extend({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().default("127.0.0.1"),
    GATEWAY_DATA_DIR: z.string().min(1).default("./data"),
    /** Use PostgreSQL instead of the embedded SQLite store (`<GATEWAY_DATA_DIR>/gateway.db`). */
    GATEWAY_DATABASE_URL: secret(z.url().optional()),
    /** With GATEWAY_DATABASE_URL: TLS with verify-full against these CAs (a private CA), as the split apps have it. */
    GATEWAY_DATABASE_CA_FILE: postgresEnv.GATEWAY_DATABASE_CA_FILE,
    GATEWAY_OPERATOR_TOKEN: secret(z.string().min(16).optional()),
    /** Signs pagination cursors; a random one per start when unset (cursors then end with the process). */
    GATEWAY_CURSOR_SECRET: secret(z.string().min(16).optional()),
    /** JSON file of catalog models with their deployments, upserted at every start. */
    GATEWAY_CATALOG_FILE: z.string().min(1).optional(),
    ...drainEnv,
    ...metricsEnv,
    ...retentionEnv,
  })
  .superRefine(checkEngineSettings);
export type StandaloneEnv = z.infer<typeof standaloneEnvSchema>;

export function parseEnv(source: Record<string, string | undefined>): StandaloneEnv {
  return parseEnvWith(standaloneEnvSchema, source);
}
