import { getTableColumns, getTableName, type SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { Db } from "./client.ts";
import { queryRows } from "./sql-rows.ts";

/**
 * Inserts many rows as ONE jsonb parameter, expanded by the database with
 * `jsonb_populate_recordset`, and ignores rows whose key exists. A batch of rows bound one
 * column at a time costs the query builder and the server a parameter per cell (tens of
 * thousands per batch); this costs one. Every column must be given a value (missing keys become
 * NULL, not the column default). Returns the `returning` column of the rows actually inserted.
 */
export async function insertJsonRows<T extends PgTable>(
  db: Pick<Db, "execute">,
  table: T,
  rows: T["$inferInsert"][],
  returning: keyof T["$inferSelect"] & string,
): Promise<string[]> {
  if (rows.length === 0) return [];
  const columns = getTableColumns(table);
  const json = rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) {
      const column = columns[key];
      if (column) out[column.name] = value instanceof Date ? value.toISOString() : value;
    }
    return out;
  });
  // Postgres text and jsonb cannot hold U+0000, and a caller can put one in any string it sends
  // (a model name); one such row would fail its whole batch on every redelivery. Replace it.
  let text = JSON.stringify(json);
  if (text.includes("\\u0000")) {
    text = JSON.stringify(json, (_key, value: unknown) =>
      typeof value === "string" ? value.replaceAll("\u0000", "\uFFFD") : value,
    );
  }
  const name = sql.identifier(getTableName(table));
  const key = sql.identifier(columns[returning]!.name);
  const inserted = await queryRows<Record<string, string>>(
    db,
    sql`insert into ${name} select * from jsonb_populate_recordset(null::${name}, ${text}::jsonb)
        on conflict do nothing returning ${key} as key`,
  );
  return inserted.map((r) => r.key!);
}

/** `<column> in (<ids>)` with the ids as one jsonb parameter, however many there are. */
export function inJsonList(column: SQL, ids: readonly string[]): SQL {
  return sql`${column} in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`;
}
