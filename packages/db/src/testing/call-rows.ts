import { inArray } from "drizzle-orm";
import type { Db } from "../client.ts";
import { query } from "../dialect.ts";
import type { calls } from "../schema/calls.ts";

export type CallRow = typeof calls.$inferSelect;

/** The stored call rows, on either store: all of them, or those of `requestIds`. */
export function callRows(db: Db, requestIds?: readonly string[]): Promise<CallRow[]> {
  return query(db, (orm, t) =>
    orm
      .select()
      .from(t.calls)
      .where(requestIds ? inArray(t.calls.requestId, [...requestIds]) : undefined)
      .orderBy(t.calls.receivedAt, t.calls.requestId),
  );
}
