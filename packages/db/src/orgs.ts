import { asc, gt } from "drizzle-orm";
import type { Db } from "./client.ts";
import { orgs } from "./schema/orgs.ts";

export type OrgRow = typeof orgs.$inferSelect;

export async function insertOrg(db: Db, org: { id: string; name: string }): Promise<OrgRow> {
  const [row] = await db.insert(orgs).values(org).returning();
  return row!;
}

export async function anyOrgExists(db: Db): Promise<boolean> {
  const [row] = await db.select({ id: orgs.id }).from(orgs).limit(1);
  return row !== undefined;
}

/** Up to `limit` orgs in id order, after `afterId` when given. */
export function listOrgs(db: Db, afterId: string | null, limit: number): Promise<OrgRow[]> {
  return db
    .select()
    .from(orgs)
    .where(afterId ? gt(orgs.id, afterId) : undefined)
    .orderBy(asc(orgs.id))
    .limit(limit);
}
