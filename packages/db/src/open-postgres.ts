import { checkServerIdentity } from "node:tls";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Db, DbHandle } from "./client.ts";
import * as schema from "./schema/index.ts";

/** Key of the PostgreSQL advisory lock held during startup work. */
const startupLockKey = 7_316_452_001;

/** PostgreSQL through postgres.js; loaded only by the processes that open it. */
export async function openPostgres(config: { url: string; max?: number; ca?: string }): Promise<DbHandle> {
  const client = postgres(config.url, {
    max: config.max ?? 10,
    onnotice: () => {},
    ...(config.ca ? { ssl: verifyFull(config.url, config.ca) } : {}),
  });
  return {
    db: drizzle(client, { schema }) as unknown as Db,
    kind: "postgres",
    async exclusive(work) {
      // An advisory lock belongs to a session, so it is taken and released on one reserved connection.
      const session = await client.reserve();
      try {
        await session`select pg_advisory_lock(${startupLockKey})`;
        try {
          return await work();
        } finally {
          await session`select pg_advisory_unlock(${startupLockKey})`;
        }
      } finally {
        session.release();
      }
    },
    close: () => client.end({ timeout: 5 }),
  };
}

/**
 * TLS that checks the server's certificate against `ca` and the URL's host name. postgres.js
 * gives TLS no host name to check when the host is an IP address, so it is checked here.
 */
function verifyFull(url: string, ca: string) {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  return {
    ca,
    rejectUnauthorized: true,
    checkServerIdentity: (_: string, cert: Parameters<typeof checkServerIdentity>[1]) =>
      checkServerIdentity(host, cert),
  };
}
