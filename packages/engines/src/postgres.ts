import { type DbHandle, openDb } from "@gateway/db";
import { EngineRefusedError, refusalOf } from "./engine-access.ts";
import type { PostgresEnv } from "./env.ts";

/**
 * The database, once it has been asked whether it takes this app: a refusal (certificate, TLS,
 * login) throws `EngineRefusedError`; a database that is away is left to the app's start, as before.
 */
export async function openPostgres(env: PostgresEnv): Promise<DbHandle> {
  const handle = await openDb({
    kind: "postgres",
    url: env.GATEWAY_DATABASE_URL,
    max: env.GATEWAY_DATABASE_POOL_SIZE,
    ...(env.GATEWAY_DATABASE_CA_FILE ? { ca: env.GATEWAY_DATABASE_CA_FILE } : {}),
  });
  const refusal = await handle.db.execute("select 1").then(() => null, refusalOf);
  if (!refusal) return handle;
  await handle.close();
  throw new EngineRefusedError(
    {
      untrusted: `GATEWAY_DATABASE_CA_FILE: PostgreSQL's certificate is not trusted (${refusal.why})`,
      tls: `GATEWAY_DATABASE_URL: PostgreSQL refused the TLS handshake (${refusal.why})`,
      login: `GATEWAY_DATABASE_URL: PostgreSQL refused the login (${refusal.why})`,
    }[refusal.kind],
  );
}
