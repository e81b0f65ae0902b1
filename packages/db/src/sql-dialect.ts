import { type AnyColumn, and, eq, or, type SQL, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { isSqlite } from "./dialect.ts";
import { picoFromParts, picoToUsd } from "./money.ts";
import type { calls as callsTable } from "./schema/calls.ts";
import { toDecimalText } from "./sql-rows.ts";

/**
 * The pieces of report and costing SQL that each dialect writes its own way, so that the queries
 * around them are written once (Grafana's migrator dialects are the same idea). Every piece gives
 * the same values on both: UTC hours and days, instants, exact money.
 */
export interface SqlDialect {
  /** A timestamp parameter. */
  ts(date: Date): SQL;
  /** The start of the `stepMs`-long slice (aligned on the epoch) holding a timestamp column, in epoch milliseconds. */
  sliceOf(column: SQL, stepMs: number): SQL;
  /** The same slice's start as a value of the column's type. */
  periodOf(column: SQL, stepMs: number): SQL;
  /** A non-negative milliseconds column in whole milliseconds, as an integer. */
  wholeMs(column: SQL): SQL;
  /** The UTC calendar date of a timestamp column, as `YYYY-MM-DD` text. */
  dayOf(column: SQL): SQL;
  /** The sum of a money column over a group, as the columns `costColumns` names. */
  costSums(column: SQL): SQL;
  /** The sums of those columns over groups of groups. */
  readonly outerCostSums: SQL;
  /** The exact decimal text of the sum a row of `costSums` (or `outerCostSums`) carries. */
  costText(row: Record<string, unknown>): string;
  /** A timestamp column selected so that `instantIn` reads it back to the millisecond. */
  instantOut(column: SQL): SQL;
  instantIn(value: unknown): Date;
  /** A scope of `refused_by` (`<scope>.<limit>`) and its limit. */
  refusedScope(column: SQL): SQL;
  refusedLimit(column: SQL): SQL;
  /**
   * A money column of one row selected so that any amount reads back, as its column reads it:
   * SQLite's pico-dollars as text, since past 2^53 ($9,007) node:sqlite reads no number.
   */
  exactMoney(column: AnyColumn): SQL<string | null>;
  /** The org's calls whose upstream request id or upstream response id is `id`. */
  withUpstreamId(calls: typeof callsTable, orgId: string, id: string): SQL;
}

/** A money column's own decoder (numeric text, or SQLite's pico-dollars to decimal text). */
const moneyOf = (column: AnyColumn) => (value: unknown) =>
  value === null ? null : (column.mapFromDriverValue(value) as string);

const postgres: SqlDialect = {
  ts: (date) => sql`${date.toISOString()}::timestamptz`,
  sliceOf: (column, stepMs) =>
    sql`(floor(extract(epoch from ${column}) * 1000 / ${sql.raw(String(stepMs))}) * ${sql.raw(String(stepMs))})::bigint`,
  periodOf: (column, stepMs) =>
    sql`date_bin(${sql.raw(`'${stepMs} milliseconds'`)}::interval, ${column}, '1970-01-01T00:00:00Z'::timestamptz)`,
  wholeMs: (column) => sql`floor(${column})::bigint`,
  dayOf: (column) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`,
  costSums: (column) => sql`coalesce(sum(${column}), 0) as cost_sum`,
  outerCostSums: sql`sum(cost_sum) as cost_sum`,
  costText: (row) => toDecimalText(row.cost_sum),
  instantOut: (column) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  instantIn: (value) => new Date(String(value)),
  refusedScope: (column) => sql`split_part(${column}, '.', 1)`,
  refusedLimit: (column) => sql`split_part(${column}, '.', 2)`,
  exactMoney: (column) => sql`${column}`.mapWith(moneyOf(column)),
  // the org in each arm: each id is then looked up by its own index
  withUpstreamId: (calls, orgId, id) =>
    or(
      and(eq(calls.orgId, orgId), eq(calls.upstreamRequestId, id)),
      and(eq(calls.orgId, orgId), eq(calls.upstreamResponseId, id)),
    )!,
};

/**
 * Timestamps are integer milliseconds, money integer pico-dollars. A sum of pico-dollars is taken
 * as whole micro-dollars plus the rest, so it never overflows 64 bits (nor 2^53 when read) before
 * $9.2 trillion, and the two are joined in BigInt (docs/decisions.md, "Money: integers, exact").
 */
const sqlite: SqlDialect = {
  ts: (date) => sql`${date.getTime()}`,
  sliceOf: (column, stepMs) => sql`(${column} - ${column} % ${sql.raw(String(stepMs))})`,
  periodOf: (column, stepMs) => sql`(${column} - ${column} % ${sql.raw(String(stepMs))})`,
  wholeMs: (column) => sql`cast(${column} as integer)`,
  dayOf: (column) => sql`strftime('%Y-%m-%d', ${column} / 1000, 'unixepoch')`,
  costSums: (column) =>
    sql`coalesce(sum(${column} / 1000000), 0) as cost_micros, coalesce(sum(${column} % 1000000), 0) as cost_rest`,
  outerCostSums: sql`sum(cost_micros) as cost_micros, sum(cost_rest) as cost_rest`,
  costText: (row) => picoToUsd(picoFromParts(row.cost_micros, row.cost_rest)),
  instantOut: (column) => column,
  instantIn: (value) => new Date(Number(value)),
  refusedScope: (column) => sql`substr(${column}, 1, instr(${column}, '.') - 1)`,
  refusedLimit: (column) => sql`substr(${column}, instr(${column}, '.') + 1)`,
  exactMoney: (column) => sql`cast(${column} as text)`.mapWith(moneyOf(column)),
  // Candidates from the upstream ids' FTS5 table (migration 0006, docs/decisions.md "Upstream ids
  // on SQLite"), then the exact id: its terms fold ASCII case and split at whitespace. The id is
  // one quoted phrase, its quotes doubled, so no character of it is query syntax.
  withUpstreamId: (calls, orgId, id) =>
    and(
      sql`${calls}.rowid in (select rowid from calls_upstream_ids where calls_upstream_ids match ${`"${id.replaceAll('"', '""')}"`})`,
      eq(calls.orgId, orgId),
      or(eq(calls.upstreamRequestId, id), eq(calls.upstreamResponseId, id)),
    )!,
};

export function sqlFor(db: Db): SqlDialect {
  return isSqlite(db) ? sqlite : postgres;
}
