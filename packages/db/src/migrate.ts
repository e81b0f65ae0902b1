import { fileURLToPath } from "node:url";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import type { DbHandle, Schema } from "./client.ts";

const migrationsFolder = fileURLToPath(new URL("../migrations", import.meta.url));

/** Applies the committed migrations; the same files serve PGlite and PostgreSQL. Idempotent. */
export async function runMigrations(handle: DbHandle): Promise<void> {
  if (handle.kind === "pglite") {
    await migratePglite(handle.db as unknown as PgliteDatabase<Schema>, { migrationsFolder });
  } else {
    await migratePostgres(handle.db as unknown as PostgresJsDatabase<Schema>, { migrationsFolder });
  }
}
