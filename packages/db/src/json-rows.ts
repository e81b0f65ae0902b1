import { getTableColumns, getTableName, type SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { Db } from "./client.ts";
import { isSqlite } from "./dialect.ts";
import { noNul, queryRows } from "./sql-rows.ts";
import { addSqliteRows, insertSqliteRows } from "./sqlite/insert-rows.ts";

/**
 * Inserts many rows and ignores rows whose key exists; returns the `returning` column of the rows
 * actually inserted. Every column must be given a value (missing keys become NULL, not the column
 * default), and U+0000 in a string becomes U+FFFD on both stores (a model name can carry one; one
 * such row would fail its whole batch on every redelivery).
 *
 * PostgreSQL: ONE jsonb parameter expanded by `jsonb_populate_recordset`; a batch bound a column
 * at a time costs the builder and the server a parameter per cell (tens of thousands), this one.
 * SQLite: one cached prepared insert per row; run it inside a transaction (docs/decisions.md).
 */
export async function insertJsonRows<T extends PgTable>(
  db: Db,
  table: T,
  rows: T["$inferInsert"][],
  returning: keyof T["$inferSelect"] & string,
): Promise<string[]> {
  if (rows.length === 0) return [];
  if (isSqlite(db)) return insertSqliteRows(db, getTableName(table), rows, returning);
  const name = sql.identifier(getTableName(table));
  const key = sql.identifier(getTableColumns(table)[returning]!.name);
  const inserted = await queryRows<Record<string, string>>(
    db,
    sql`insert into ${name} select * from jsonb_populate_recordset(null::${name}, ${jsonRows(table, rows)}::jsonb)
        on conflict do nothing returning ${key} as key`,
  );
  return inserted.map((r) => r.key!);
}

/**
 * Adds rows to a table of sums: each row is inserted, or its `added` columns (by column name) are
 * added to those of the row with the same key (`keyColumns`, the table's primary key), in key order
 * so that concurrent writers take the rows' locks in one order. As `insertJsonRows` on each store.
 */
export async function addJsonRows<T extends PgTable>(
  db: Db,
  table: T,
  rows: T["$inferInsert"][],
  keyColumns: readonly string[],
  added: readonly string[],
): Promise<void> {
  if (rows.length === 0) return;
  if (isSqlite(db)) return addSqliteRows(db, getTableName(table), rows, keyColumns, added);
  const name = getTableName(table);
  const key = keyColumns.join(", ");
  const sums = added.map((c) => `${c} = ${name}.${c} + excluded.${c}`).join(", ");
  await queryRows(
    db,
    sql`insert into ${sql.identifier(name)}
        select * from jsonb_populate_recordset(null::${sql.identifier(name)}, ${jsonRows(table, rows)}::jsonb)
        order by ${sql.raw(key)}
        on conflict (${sql.raw(key)}) do update set ${sql.raw(sums)}`,
  );
}

/** Rows as one JSON array keyed by column name (instants as ISO text), U+0000 made U+FFFD. */
function jsonRows<T extends PgTable>(table: T, rows: T["$inferInsert"][]): string {
  const columns = getTableColumns(table);
  const json = rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) {
      const column = columns[key];
      if (column) out[column.name] = value instanceof Date ? value.toISOString() : value;
    }
    return out;
  });
  const text = JSON.stringify(json);
  if (!text.includes("\\u0000")) return text;
  return JSON.stringify(json, (_key, value: unknown) => (typeof value === "string" ? noNul(value) : value));
}

/** `<column> in (<ids>)` with the ids as one JSON parameter, however many there are. */
export function inJsonList(db: Db, column: SQL, ids: readonly string[]): SQL {
  const list = JSON.stringify(ids);
  return isSqlite(db)
    ? sql`${column} in (select value from json_each(${list}))`
    : sql`${column} in (select jsonb_array_elements_text(${list}::jsonb))`;
}
