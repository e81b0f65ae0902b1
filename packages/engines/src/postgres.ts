import { type DbHandle, openDb } from "@gateway/db";
import type { PostgresEnv } from "./env.ts";

export function openPostgres(env: PostgresEnv): Promise<DbHandle> {
  return openDb({
    kind: "postgres",
    url: env.GATEWAY_DATABASE_URL,
    max: env.GATEWAY_DATABASE_POOL_SIZE,
    ...(env.GATEWAY_DATABASE_CA_FILE ? { ca: env.GATEWAY_DATABASE_CA_FILE } : {}),
  });
}
