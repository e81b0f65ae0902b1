import { type DbHandle, freshPostgresDatabase, openDb, runMigrations } from "../../src/index.ts";

/**
 * Opens migrated, empty databases on `store` (PGlite in memory, or a fresh PostgreSQL database);
 * `closeAll` closes (and drops) every one opened.
 */
export function testDatabases(store: "pglite" | "postgres") {
  const cleanups: (() => Promise<void>)[] = [];
  return {
    async open(): Promise<DbHandle> {
      let handle: DbHandle;
      if (store === "pglite") handle = await openDb({ kind: "pglite", dataDir: null });
      else {
        const fresh = await freshPostgresDatabase(process.env.GATEWAY_TEST_POSTGRES_URL!);
        cleanups.push(fresh.drop);
        handle = await openDb(fresh.config);
      }
      cleanups.push(() => handle.close());
      await runMigrations(handle);
      return handle;
    },
    async closeAll() {
      for (const cleanup of cleanups.reverse()) await cleanup();
    },
  };
}
