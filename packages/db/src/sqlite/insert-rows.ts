import type { SQLInputValue } from "node:sqlite";
import { type Column, getTableColumns, getTableName, is, Table } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { noNul } from "../sql-rows.ts";
import * as tables from "./schema/index.ts";
import type { SqliteDb } from "./sqlite-db.ts";
import { withUpstreamIdsIndexed } from "./upstream-ids.ts";

const byName = new Map<string, SQLiteTable>(
  Object.values(tables).flatMap((table) => (is(table, Table) ? [[getTableName(table), table] as const] : [])),
);

/** How rows of one table are inserted: the statement's text up to its conflict clause, each column's field and encoder. */
interface InsertPlan {
  text: string;
  columns: { field: string; column: Column }[];
}

// Made once per table: the column list and the statement text were rebuilt for every batch, which
// the call path paid on each of its inserts per call.
const plans = new Map<string, InsertPlan>();

function insertPlan(tableName: string): InsertPlan {
  const cached = plans.get(tableName);
  if (cached) return cached;
  const table = byName.get(tableName);
  if (!table) throw new Error(`no SQLite table ${tableName}`);
  const columns = Object.entries(getTableColumns(table)).map(([field, column]) => ({ field, column }));
  const plan = {
    text: `insert into "${tableName}" (${columns.map((c) => `"${c.column.name}"`).join(", ")})
     values (${columns.map(() => "?").join(", ")})`,
    columns,
  };
  plans.set(tableName, plan);
  return plan;
}

/** Each row's values bound to `statement`, encoded as its columns store them; what each run returned. */
function runEach<R extends object>(
  statement: { run(...values: SQLInputValue[]): { changes: number | bigint } },
  columns: InsertPlan["columns"],
  rows: R[],
  each: (values: SQLInputValue[], changes: number | bigint) => void = () => {},
): void {
  const values: SQLInputValue[] = new Array(columns.length);
  for (const row of rows) {
    for (let i = 0; i < columns.length; i++) {
      const { field, column } = columns[i]!;
      values[i] = encoded(column, (row as Record<string, unknown>)[field]);
    }
    each(values, statement.run(...values).changes);
  }
}

/** A field's value as the column stores it: its own encoder (a `Date` to milliseconds, a boolean to 0/1, JSON to text, dollars to pico-dollars). */
function encoded(column: Column, value: unknown): SQLInputValue {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return column.mapToDriverValue(noNul(value)) as SQLInputValue;
  const stored: unknown = column.mapToDriverValue(value);
  // a JSON column's text: U+0000 inside it is the escape `\u0000`
  if (typeof stored === "string" && stored.includes("\\u0000"))
    return JSON.stringify(value, (_key, v: unknown) => (typeof v === "string" ? noNul(v) : v));
  return stored as SQLInputValue;
}

/**
 * Adds rows to a table of sums: each row is inserted, or its `added` columns are added to those of
 * the row with the same key (`keyColumns`, the table's primary key). One prepared statement per row,
 * as `insertSqliteRows`; inside the caller's transaction.
 */
export function addSqliteRows<R extends object>(
  db: SqliteDb,
  tableName: string,
  rows: R[],
  keyColumns: readonly string[],
  added: readonly string[],
): void {
  if (db.depth === 0) throw new Error("addSqliteRows outside a transaction");
  const { text, columns } = insertPlan(tableName);
  const key = keyColumns.map((c) => `"${c}"`).join(", ");
  const sums = added.map((c) => `"${c}" = "${tableName}"."${c}" + excluded."${c}"`).join(", ");
  runEach(db.connection.statement(`${text} on conflict (${key}) do update set ${sums}`), columns, rows);
}

/**
 * Inserts rows one prepared statement each, ignoring those whose key exists, and returns the
 * `returning` field of the rows inserted. Row by row inside the caller's transaction is SQLite's
 * fastest insert (4.5 µs a row, measured: docs/decisions.md).
 */
export async function insertSqliteRows<R extends object>(
  db: SqliteDb,
  tableName: string,
  rows: R[],
  returning: string,
): Promise<string[]> {
  if (db.depth === 0) throw new Error("insertSqliteRows outside a transaction");
  const { text, columns } = insertPlan(tableName);
  const keyIndex = columns.findIndex((c) => c.field === returning);
  // No `returning` clause: a row went in when the statement changed one, and its key is the value
  // bound for it; building a result row per insert cost more than reading `changes`.
  const inserted: string[] = [];
  const insert = () =>
    runEach(db.connection.statement(`${text} on conflict do nothing`), columns, rows, (values, changes) => {
      if (changes > 0) inserted.push(values[keyIndex] as string);
    });
  if (tableName === "calls") withUpstreamIdsIndexed(db.connection, insert);
  else insert();
  return inserted;
}
