import { type SQL, sql } from "drizzle-orm";
import type { Db, PgDb } from "../client.ts";
import { isSqlite } from "../dialect.ts";
import { sqlFor } from "../sql-dialect.ts";
import { queryRows } from "../sql-rows.ts";
import { dayPartitions, dropDayPartition, isEmptyPartition } from "./day-partitions.ts";
import { type Expiry, expiryOf, ofOrgs, rowIdOf } from "./expiry-groups.ts";

export interface CallsPruned {
  /** The `calls` partitions dropped whole (PostgreSQL). */
  droppedPartitions: string[];
  /** Call rows deleted one by one: SQLite's, and PostgreSQL's of orgs keeping less than others. */
  deletedCalls: number;
  deletedRollups: number;
  /** Per-minute rollups, kept as long as the call rows. */
  deletedMinuteRollups: number;
  /** Rows of the latency histograms (`call_latency_hourly`), kept as long as the rollups. */
  deletedLatencyRows: number;
}

/** Rows a delete statement takes at most: short transactions, whatever an org's size. */
const deleteBatch = 5_000;

/**
 * Removes the call rows, per-minute rollups and hourly rollups past their org's retention (`retentionOfEveryOrg`),
 * by whole UTC days (`keptSince`). On PostgreSQL a day every org is done with is dropped as a
 * partition; in a day only some orgs are done with, those orgs' rows are deleted, and the day is
 * dropped once that leaves it empty. SQLite deletes the same rows in batches.
 */
export async function pruneCalls(db: Db, now: Date): Promise<CallsPruned> {
  const calls = await expiryOf(db, "callsDays", now);
  const rollups = await expiryOf(db, "rollupsDays", now);
  const pruned: CallsPruned = {
    droppedPartitions: [],
    deletedCalls: 0,
    deletedRollups: 0,
    deletedMinuteRollups: 0,
    deletedLatencyRows: 0,
  };
  for (const group of rollups?.groups ?? []) {
    const keptSince = sqlFor(db).ts(group.keptSince);
    const ofGroup = ofOrgs(db, sql`project_id`, group.orgIds);
    const rows = await queryRows(
      db,
      sql`delete from call_rollups_hourly where hour < ${keptSince} and ${ofGroup} returning 1`,
    );
    pruned.deletedRollups += rows.length;
    // the histograms' periods (1, 6, 24 h) are aligned on UTC days, as `keptSince` is: a period
    // is either wholly before it or wholly kept
    const latency = await queryRows(
      db,
      sql`delete from call_latency_hourly where starts_at < ${keptSince} and ${ofGroup} returning 1`,
    );
    pruned.deletedLatencyRows += latency.length;
  }
  if (!calls) return pruned;
  for (const group of calls.groups) {
    const where = sql`minute < ${sqlFor(db).ts(group.keptSince)} and ${ofOrgs(db, sql`project_id`, group.orgIds)}`;
    pruned.deletedMinuteRollups += await deleteInBatches(db, sql`call_rollups_minutely`, rowIdOf(db), where);
  }
  if (isSqlite(db)) {
    for (const group of calls.groups) {
      const where = sql`received_at < ${sqlFor(db).ts(group.keptSince)} and ${ofOrgs(db, sql`project_id`, group.orgIds)}`;
      pruned.deletedCalls += await deleteInBatches(db, sql`calls`, rowIdOf(db), where);
    }
    return pruned;
  }
  await prunePartitions(db, calls, pruned);
  return pruned;
}

async function prunePartitions(db: PgDb, expiry: Expiry, pruned: CallsPruned) {
  for (const partition of await dayPartitions(db, "calls")) {
    if (partition.end > expiry.anyOrgBefore) continue;
    if (partition.end > expiry.everyOrgBefore) {
      const table = sql`${sql.identifier(partition.name)}`;
      for (const group of expiry.groups.filter((g) => g.keptSince >= partition.end)) {
        pruned.deletedCalls += await deleteInBatches(
          db,
          table,
          rowIdOf(db),
          ofOrgs(db, sql`project_id`, group.orgIds),
        );
      }
      if (!(await isEmptyPartition(db, partition))) continue;
    }
    await dropDayPartition(db, partition);
    pruned.droppedPartitions.push(partition.name);
  }
}

/** Deletes the rows of `table` matching `where`, `deleteBatch` at a time; how many. */
async function deleteInBatches(db: Db, table: SQL, rowId: SQL, where: SQL): Promise<number> {
  const pick = sql`select ${rowId} from ${table} where ${where} limit ${deleteBatch}`;
  const batch = isSqlite(db)
    ? sql`delete from ${table} where ${rowId} in (${pick}) returning 1`
    : sql`delete from ${table} where ${rowId} = any(array(${pick})) returning 1`;
  let total = 0;
  for (;;) {
    const deleted = (await queryRows(db, batch)).length;
    total += deleted;
    if (deleted < deleteBatch) return total;
  }
}
