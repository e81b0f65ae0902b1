import { fileURLToPath } from "node:url";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import type { DbHandle, Schema } from "./client.ts";
import { isSqlite } from "./dialect.ts";

const folder = (dialect: "postgres" | "sqlite") =>
  fileURLToPath(new URL(`../migrations/${dialect}`, import.meta.url));

/**
 * Applies the committed migrations of the store's dialect: `migrations/postgres` or
 * `migrations/sqlite`. Idempotent.
 */
export async function runMigrations(handle: DbHandle): Promise<void> {
  const { db } = handle;
  // each driver's migrator imported only where that driver is open (see `openDb`)
  if (isSqlite(db)) {
    const { migrate } = await import("drizzle-orm/better-sqlite3/migrator");
    await db.connection.holdTurn(async () =>
      migrate(db.orm as never, { migrationsFolder: folder("sqlite") }),
    );
  } else {
    const { migrate } = await import("drizzle-orm/postgres-js/migrator");
    await migrate(db as unknown as PostgresJsDatabase<Schema>, { migrationsFolder: folder("postgres") });
  }
}
