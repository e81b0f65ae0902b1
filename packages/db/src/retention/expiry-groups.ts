import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { isSqlite } from "../dialect.ts";
import { inJsonList } from "../json-rows.ts";
import { keptSince, type Retention, retentionOfEveryOrg } from "./settings.ts";

/** Orgs that keep one kind of data equally long, and the oldest instant they keep at `now`. */
interface ExpiryGroup {
  orgIds: string[];
  keptSince: Date;
}

/** One kind of data's groups, and the bounds partitions are judged by. */
export interface Expiry {
  /** The shortest retention's group first. */
  groups: ExpiryGroup[];
  /** Every org's data before this has expired: a partition ending by it is dropped whole. */
  everyOrgBefore: Date;
  /** Every org keeps data from this on: only partitions ending by it may hold expired rows. */
  anyOrgBefore: Date;
}

/**
 * Every org grouped by how long it keeps one kind of data (few groups: most orgs keep the
 * defaults). Null when there is no org, so nothing is pruned.
 */
export async function expiryOf(db: Db, kind: keyof Retention, now: Date): Promise<Expiry | null> {
  const byDays = new Map<number, string[]>();
  for (const [orgId, retention] of await retentionOfEveryOrg(db)) {
    const days = retention[kind];
    byDays.set(days, [...(byDays.get(days) ?? []), orgId]);
  }
  if (byDays.size === 0) return null;
  const groups = [...byDays.entries()]
    .sort(([a], [b]) => a - b)
    .map(([days, orgIds]) => ({ orgIds, keptSince: keptSince(now, days) }));
  return {
    groups,
    everyOrgBefore: groups.at(-1)!.keptSince,
    anyOrgBefore: groups[0]!.keptSince,
  };
}

/** `<alias>.project_id in (the projects of these orgs)`: rows found through the project index. */
export function ofOrgs(db: Db, projectColumn: SQL, orgIds: readonly string[]): SQL {
  return sql`${projectColumn} in (select p.id from projects p where ${inJsonList(db, sql`p.org_id`, orgIds)})`;
}

/** The column naming a row within its table, for deleting rows a batch at a time. */
export const rowIdOf = (db: Db) => (isSqlite(db) ? sql`rowid` : sql`ctid`);
