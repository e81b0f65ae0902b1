import { asc, eq, gt } from "drizzle-orm";
import type { Db } from "./client.ts";
import { query } from "./dialect.ts";
import type { orgs } from "./schema/orgs.ts";

export type OrgRow = typeof orgs.$inferSelect;

export async function insertOrg(db: Db, org: { id: string; name: string }): Promise<OrgRow> {
  const [row] = await query(db, (orm, t) => orm.insert(t.orgs).values(org).returning());
  return row!;
}

export async function anyOrgExists(db: Db): Promise<boolean> {
  const [row] = await query(db, (orm, t) => orm.select({ id: t.orgs.id }).from(t.orgs).limit(1));
  return row !== undefined;
}

/** Up to `limit` orgs in id order, after `afterId` when given. */
export async function listOrgs(db: Db, afterId: string | null, limit: number): Promise<OrgRow[]> {
  return query(db, (orm, t) =>
    orm
      .select()
      .from(t.orgs)
      .where(afterId ? gt(t.orgs.id, afterId) : undefined)
      .orderBy(asc(t.orgs.id))
      .limit(limit),
  );
}

/** Whether an org with this id exists. */
export async function orgExists(db: Db, id: string): Promise<boolean> {
  const [row] = await query(db, (orm, t) =>
    orm.select({ id: t.orgs.id }).from(t.orgs).where(eq(t.orgs.id, id)),
  );
  return row !== undefined;
}
