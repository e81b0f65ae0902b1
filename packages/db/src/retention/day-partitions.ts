import { sql } from "drizzle-orm";
import type { Db, PgDb } from "../client.ts";
import { isSqlite } from "../dialect.ts";
import { queryRows } from "../sql-rows.ts";

/** The PostgreSQL tables partitioned by UTC day of `received_at` (migration 0006). */
export type DayPartitioned = "calls" | "capture_index";

export interface DayPartition {
  name: string;
  /** The partition holds rows received in [start, end): one UTC day. */
  start: Date;
  end: Date;
}

const dayMs = 86_400_000;

/** The table's day partitions, oldest first (named `<table>_pYYYYMMDD` by `gateway_day_partition`). */
export async function dayPartitions(db: PgDb, table: DayPartitioned): Promise<DayPartition[]> {
  const rows = await queryRows<{ name: string }>(
    db,
    sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = ${table}::regclass order by c.relname`,
  );
  return rows.flatMap(({ name }) => {
    const day = /_p(\d{4})(\d{2})(\d{2})$/.exec(name);
    if (!day) return [];
    const start = new Date(`${day[1]}-${day[2]}-${day[3]}T00:00:00Z`);
    return [{ name, start, end: new Date(start.getTime() + dayMs) }];
  });
}

/** Creates the partitions of the UTC days holding `instants` that do not exist yet; how many it created. */
async function createDayPartitions(db: PgDb, table: DayPartitioned, instants: Date[]): Promise<number> {
  const days = [...new Set(instants.map((at) => at.toISOString().slice(0, 10)))];
  if (days.length === 0) return 0;
  const rows = await queryRows<{ created: boolean }>(
    db,
    sql`select gateway_day_partition(${table}, day) as created
        from unnest(${`{${days.join(",")}}`}::date[]) as day`,
  );
  return rows.filter((r) => r.created).length;
}

/**
 * Runs `insert`, and when PostgreSQL finds no partition for a row (a day the maintenance job did
 * not create ahead: a late event, a clock far off), creates the days of `instants` and runs it once
 * more. Nothing is checked on the way in: the usual batch pays nothing. SQLite has no partitions.
 */
export async function withDayPartitions<T>(
  db: Db,
  table: DayPartitioned,
  instants: () => Date[],
  insert: () => Promise<T>,
): Promise<T> {
  if (isSqlite(db)) return insert();
  try {
    return await insert();
  } catch (error) {
    if (!isMissingPartition(error)) throw error;
    await createDayPartitions(db, table, instants());
    return insert();
  }
}

/** SQLSTATE 23514 "no partition of relation ... found for row" (drizzle wraps it in `cause`). */
function isMissingPartition(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Object; e = (e as { cause?: unknown }).cause) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (code === "23514" && typeof message === "string" && message.includes("no partition")) return true;
  }
  return false;
}

/** Drops a partition: its rows go at once, with no dead rows left behind for vacuum. */
export async function dropDayPartition(db: PgDb, partition: DayPartition): Promise<void> {
  await queryRows(db, sql`drop table if exists ${sql.identifier(partition.name)}`);
}

/** Whether a partition holds no row. */
export async function isEmptyPartition(db: PgDb, partition: DayPartition): Promise<boolean> {
  const rows = await queryRows(db, sql`select 1 from ${sql.identifier(partition.name)} limit 1`);
  return rows.length === 0;
}

/** Days created ahead of need, so no insert waits for a partition to be created. */
const aheadDays = 7;

/** Creates the table's partitions from the day of `now` to `aheadDays` days after (PostgreSQL); how many were new. */
export async function createPartitionsAhead(db: Db, table: DayPartitioned, now: Date): Promise<number> {
  if (isSqlite(db)) return 0;
  const days = Array.from({ length: aheadDays + 1 }, (_, i) => new Date(now.getTime() + i * dayMs));
  return createDayPartitions(db, table, days);
}
