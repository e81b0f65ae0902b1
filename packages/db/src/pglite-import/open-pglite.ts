import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import type { DbHandle, PgDb } from "../client.ts";
import * as schema from "../schema/index.ts";

const postgresMigrations = fileURLToPath(new URL("../../migrations/postgres", import.meta.url));

/**
 * A data dir written by PGlite (the embedded store before SQLite), opened on this thread and
 * brought to the current PostgreSQL migrations, as the release that wrote it would have done at
 * its next start. Only the upgrade loads this file, and only when such a dir exists
 * (`upgradeFromPglite`); the tests use it to write a dir as that release did.
 */
export async function openPgliteStore(dataDir: string): Promise<DbHandle<PgDb>> {
  mkdirSync(dataDir, { recursive: true });
  // PostgreSQL's initdb default of 128 MB of shared buffers lives in WebAssembly memory and is
  // touched; the tables are files the OS caches anyway, so the upgrade's peak keeps 16 MB.
  const client = new PGlite(dataDir, {
    startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"],
  });
  await client.waitReady;
  const db = drizzle(client, { schema });
  try {
    await migrate(db, { migrationsFolder: postgresMigrations });
  } catch (error) {
    await client.close();
    throw error;
  }
  // one caller, the upgrade: nobody to take turns with
  return {
    db: db as unknown as PgDb,
    kind: "postgres",
    exclusive: (work) => work(),
    close: () => client.close(),
  };
}
