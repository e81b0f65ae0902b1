import { type SQL, sql } from "drizzle-orm";
import type { Db, PgDb } from "../client.ts";
import { isSqlite } from "../dialect.ts";
import { inJsonList } from "../json-rows.ts";
import { sqlFor } from "../sql-dialect.ts";
import { queryRows } from "../sql-rows.ts";
import { type DayPartition, dayPartitions, dropDayPartition, isEmptyPartition } from "./day-partitions.ts";
import { type Expiry, expiryOf, ofOrgs, rowIdOf } from "./expiry-groups.ts";

export interface CapturesPruned {
  /** The `capture_index` partitions dropped whole (PostgreSQL). */
  droppedPartitions: string[];
  /** Index rows deleted one by one: SQLite's, and PostgreSQL's of orgs keeping less than others. */
  deletedCaptures: number;
  /** Objects deleted: no index row named them any more. */
  deletedObjects: number;
}

/** Deletes capture objects from the blob store (absent keys are no error). */
export type DeleteObjects = (keys: string[]) => Promise<void>;

/** Index rows (or keys) handled per step. */
const batch = 1_000;

/**
 * Removes the captures past their org's retention, by whole UTC days of the call's `received_at`:
 * index rows and the objects no remaining row names (one object per capture, or a segment shared
 * by many: it goes with its last row). A removed capture answers 404 like one never taken.
 * PostgreSQL drops a day every org is done with as a partition, after deleting its objects (a
 * crash between leaves rows whose read is already a 404, and the next run finishes). Row deletes
 * go first elsewhere, then the objects: a crash between leaves unlisted objects, which the
 * documented lifecycle rule on the prefix removes (docs/operations.md "Retention").
 */
export async function pruneCaptures(
  db: Db,
  now: Date,
  deleteObjects: DeleteObjects,
): Promise<CapturesPruned> {
  const pruned: CapturesPruned = { droppedPartitions: [], deletedCaptures: 0, deletedObjects: 0 };
  const expiry = await expiryOf(db, "capturesDays", now);
  if (!expiry) return pruned;
  if (isSqlite(db)) {
    for (const group of expiry.groups) {
      const where = sql`received_at < ${sqlFor(db).ts(group.keptSince)} and ${ofOrgs(db, sql`project_id`, group.orgIds)}`;
      await deleteRowsThenObjects(db, sql`capture_index`, where, deleteObjects, pruned);
    }
    return pruned;
  }
  await prunePartitions(db, expiry, deleteObjects, pruned);
  return pruned;
}

async function prunePartitions(
  db: PgDb,
  expiry: Expiry,
  deleteObjects: DeleteObjects,
  pruned: CapturesPruned,
) {
  for (const partition of await dayPartitions(db, "capture_index")) {
    if (partition.end > expiry.anyOrgBefore) continue;
    if (partition.end > expiry.everyOrgBefore) {
      const table = sql`${sql.identifier(partition.name)}`;
      for (const group of expiry.groups.filter((g) => g.keptSince >= partition.end)) {
        await deleteRowsThenObjects(
          db,
          table,
          ofOrgs(db, sql`project_id`, group.orgIds),
          deleteObjects,
          pruned,
        );
      }
      if (!(await isEmptyPartition(db, partition))) continue;
    } else {
      await deleteObjectsOf(db, partition, deleteObjects, pruned);
    }
    await dropDayPartition(db, partition);
    pruned.droppedPartitions.push(partition.name);
  }
}

/** Deletes the objects a whole partition names that no row outside it names, `batch` keys at a time. */
async function deleteObjectsOf(
  db: PgDb,
  partition: DayPartition,
  deleteObjects: DeleteObjects,
  pruned: CapturesPruned,
) {
  const table = sql`${sql.identifier(partition.name)}`;
  let after = "";
  for (;;) {
    const rows = await queryRows<{ key: string }>(
      db,
      sql`select distinct key from ${table} where key > ${after} order by key limit ${batch}`,
    );
    if (rows.length === 0) return;
    const keys = rows.map((r) => r.key);
    const elsewhere = sql`(received_at < ${sqlFor(db).ts(partition.start)} or received_at >= ${sqlFor(db).ts(partition.end)})`;
    await deleteUnnamed(db, keys, elsewhere, deleteObjects, pruned);
    after = keys.at(-1)!;
  }
}

/** Deletes the rows matching `where` `batch` at a time, each batch's unnamed objects after it. */
async function deleteRowsThenObjects(
  db: Db,
  table: SQL,
  where: SQL,
  deleteObjects: DeleteObjects,
  pruned: CapturesPruned,
) {
  const rowId = rowIdOf(db);
  const pick = sql`select ${rowId} from ${table} where ${where} limit ${batch}`;
  const remove = isSqlite(db)
    ? sql`delete from ${table} where ${rowId} in (${pick}) returning key`
    : sql`delete from ${table} where ${rowId} = any(array(${pick})) returning key`;
  for (;;) {
    const rows = await queryRows<{ key: string }>(db, remove);
    pruned.deletedCaptures += rows.length;
    if (rows.length > 0)
      await deleteUnnamed(db, [...new Set(rows.map((r) => r.key))], sql`true`, deleteObjects, pruned);
    if (rows.length < batch) return;
  }
}

/** Deletes those of `keys` that no index row matching `where` names. */
async function deleteUnnamed(
  db: Db,
  keys: string[],
  where: SQL,
  deleteObjects: DeleteObjects,
  pruned: CapturesPruned,
) {
  const named = await queryRows<{ key: string }>(
    db,
    sql`select distinct key from capture_index where ${inJsonList(db, sql`key`, keys)} and ${where}`,
  );
  const keep = new Set(named.map((r) => r.key));
  const unnamed = keys.filter((key) => !keep.has(key));
  if (unnamed.length === 0) return;
  await deleteObjects(unnamed);
  pruned.deletedObjects += unnamed.length;
}
