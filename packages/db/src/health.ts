import { sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { queryRows } from "./sql-rows.ts";

/**
 * Whether the database answers a trivial query within `timeoutMs`: the readiness of an app that
 * cannot serve without it. A hung connection counts as down, as a refused one does.
 */
export async function databaseAnswers(db: Db, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, false);
  });
  try {
    return await Promise.race([queryRows(db, sql`select 1`).then(() => true), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
