import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import type { Db, DbHandle } from "./client.ts";
import { pgliteOptions } from "./pglite-options.ts";
import { startPgliteThread } from "./pglite-thread/client.ts";
import * as schema from "./schema/index.ts";

/** PGlite on disk (or in memory when `dataDir` is null); loaded only by the process that embeds it. */
export async function openPglite(config: { dataDir: string | null; ownThread?: boolean }): Promise<DbHandle> {
  if (config.dataDir) mkdirSync(config.dataDir, { recursive: true });
  const client = config.ownThread
    ? (startPgliteThread(config.dataDir) as unknown as PGlite)
    : new PGlite(config.dataDir ?? undefined, pgliteOptions);
  await client.waitReady;
  // One PGlite has one user, this process: its callers only need to take turns.
  let turn: Promise<unknown> = Promise.resolve();
  return {
    db: drizzle(client, { schema }) as unknown as Db,
    kind: "pglite",
    exclusive(work) {
      const result = turn.then(work, work);
      turn = result.catch(() => {});
      return result;
    },
    close: () => client.close(),
  };
}
