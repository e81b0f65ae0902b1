import { type Column, getTableColumns, getTableName, is, type SQL, sql, Table } from "drizzle-orm";
import { getTableConfig, type PgColumn, type PgTable } from "drizzle-orm/pg-core";
import type { PgDb, SqliteDb } from "../client.ts";
import * as pgSchema from "../schema/index.ts";
import { insertSqliteRows } from "../sqlite/insert-rows.ts";
import * as sqliteSchema from "../sqlite/schema/index.ts";
import { sqliteTransaction } from "../sqlite/transaction.ts";
import { exactMoney } from "./exact-values.ts";

/** The tables in an order the foreign keys accept (a row's parent before it). */
const tableOrder = [
  "orgs",
  "org_retention",
  "catalog_models",
  "catalog_deployments",
  "projects",
  "workloads",
  "api_keys",
  "prices",
  "limits",
  "spend_daily",
  "calls",
  "call_rollups_hourly",
  "call_rollups_minutely",
  "call_latency_hourly",
  "capture_index",
  "idempotency_keys",
];

const tablesOf = (schema: object) =>
  new Map(Object.values(schema).flatMap((t) => (is(t, Table) ? [[getTableName(t), t] as const] : [])));

/** Every PostgreSQL table in `tableOrder`'s order; a table missing from the list is an error, not a table left behind. */
function pgTables(): PgTable[] {
  const byName = tablesOf(pgSchema) as Map<string, PgTable>;
  const unlisted = [...byName.keys()].filter((name) => !tableOrder.includes(name));
  if (unlisted.length > 0)
    throw new Error(`the PGlite import does not list the tables ${unlisted.join(", ")}`);
  return tableOrder.map((name) => byName.get(name)!);
}

/** The fields of a table's primary key, in its order: the key the pages are read by. */
function keyFields(table: PgTable): [string, PgColumn][] {
  const columns = Object.entries(getTableColumns(table)) as [string, PgColumn][];
  const composite = getTableConfig(table).primaryKeys[0]?.columns;
  const keyColumns = composite ?? columns.filter(([, c]) => c.primary).map(([, c]) => c);
  // getTableConfig builds its key from copies of the columns: found again by name
  return keyColumns.map((key) => columns.find(([, c]) => c.name === key.name)!);
}

/**
 * Reads a table a page at a time by its primary key (`(key) > (last key read)`, its index): memory
 * holds one page whatever the table's size, and no page is read twice or skipped.
 */
async function* pages(pg: PgDb, table: PgTable, size: number): AsyncGenerator<Record<string, unknown>[]> {
  const key = keyFields(table);
  const keyList = sql.join(
    key.map(([, c]) => sql`${c}`),
    sql`, `,
  );
  let after: SQL | undefined;
  for (;;) {
    const rows: Record<string, unknown>[] = await pg
      .select()
      .from(table)
      .where(after)
      .orderBy(...key.map(([, c]) => c))
      .limit(size);
    if (rows.length > 0) yield rows;
    if (rows.length < size) return;
    const last = rows.at(-1)!;
    after = sql`(${keyList}) > (${sql.join(
      key.map(([field, c]) => sql.param(last[field], c)),
      sql`, `,
    )})`;
  }
}

/**
 * What makes a row of `table` one SQLite takes: every `numeric` converted exactly (or refused,
 * naming the row), through the SQLite twin's column of the same field.
 */
function sqliteRowMaker(table: PgTable, sqliteTable: Table) {
  const sqliteColumns = getTableColumns(sqliteTable) as Record<string, Column>;
  const money = Object.entries(getTableColumns(table)).filter(([, c]) => c.columnType === "PgNumeric");
  return (row: Record<string, unknown>): Record<string, unknown> => {
    for (const [field, column] of money) {
      const value = row[field];
      if (typeof value !== "string") continue;
      try {
        row[field] = exactMoney(value, sqliteColumns[field]!);
      } catch (error) {
        const key = keyFields(table).map(([f]) => {
          const value = row[f];
          return value instanceof Date ? value.toISOString() : String(value);
        });
        throw new Error(
          `${getTableName(table)}.${column.name} of row (${key.join(", ")}): ${(error as Error).message}`,
        );
      }
    }
    return row;
  };
}

/**
 * Copies every table of a migrated PostgreSQL store (PGlite) into a migrated, empty SQLite store,
 * one transaction per page of `pageSize` rows; returns the rows copied per table.
 */
export async function copyTables(
  pg: PgDb,
  sqlite: SqliteDb,
  pageSize: number,
): Promise<Record<string, number>> {
  const sqliteTables = tablesOf(sqliteSchema);
  const copied: Record<string, number> = {};
  for (const table of pgTables()) {
    const name = getTableName(table);
    const toSqliteRow = sqliteRowMaker(table, sqliteTables.get(name)!);
    const returning = keyFields(table)[0]![0];
    copied[name] = 0;
    for await (const page of pages(pg, table, pageSize)) {
      const rows = page.map(toSqliteRow);
      const inserted = await sqliteTransaction(sqlite, async (tx) =>
        insertSqliteRows(tx, name, rows, returning),
      );
      // the store is new: a row that did not go in is a key the two stores order differently
      if (inserted.length !== rows.length)
        throw new Error(`${name}: ${rows.length - inserted.length} rows not copied`);
      copied[name] += rows.length;
    }
  }
  return copied;
}
