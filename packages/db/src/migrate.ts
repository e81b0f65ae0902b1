import { fileURLToPath } from "node:url";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import type { DbHandle, Schema } from "./client.ts";

const migrationsFolder = fileURLToPath(new URL("../migrations", import.meta.url));

/** Applies the committed migrations; the same files serve PGlite and PostgreSQL. Idempotent. */
export async function runMigrations(handle: DbHandle): Promise<void> {
  // each driver's migrator imported only where that driver is open (see `openDb`)
  if (handle.kind === "pglite") {
    const { migrate } = await import("drizzle-orm/pglite/migrator");
    await migrate(handle.db as unknown as PgliteDatabase<Schema>, { migrationsFolder });
  } else {
    const { migrate } = await import("drizzle-orm/postgres-js/migrator");
    await migrate(handle.db as unknown as PostgresJsDatabase<Schema>, { migrationsFolder });
  }
}
