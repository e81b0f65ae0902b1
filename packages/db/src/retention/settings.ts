import { eq, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { query } from "../dialect.ts";

/** How many days an org's call rows, captures and hourly rollups are kept. */
export interface Retention {
  callsDays: number;
  capturesDays: number;
  rollupsDays: number;
}

/**
 * What an org keeps until an operator says otherwise (docs/operations.md "Retention"): the
 * rollups outlive the rows they sum, so the usage summary answers for its whole window (30 days
 * at most) long after the rows are gone.
 */
export const retentionDefaults: Readonly<Retention> = { callsDays: 90, capturesDays: 30, rollupsDays: 400 };

/** A change to an org's retention: a number sets, null goes back to the default, a field left out keeps. */
export type RetentionUpdate = { [K in keyof Retention]?: number | null };

type Settings = { [K in keyof Retention]: number | null };

const withDefaults = (row: Settings | undefined): Retention => ({
  callsDays: row?.callsDays ?? retentionDefaults.callsDays,
  capturesDays: row?.capturesDays ?? retentionDefaults.capturesDays,
  rollupsDays: row?.rollupsDays ?? retentionDefaults.rollupsDays,
});

/** The org's retention, its defaults filled in. */
export async function retentionOf(db: Db, orgId: string): Promise<Retention> {
  const [row] = await query(db, (orm, { orgRetention: r }) =>
    orm
      .select({ callsDays: r.callsDays, capturesDays: r.capturesDays, rollupsDays: r.rollupsDays })
      .from(r)
      .where(eq(r.orgId, orgId)),
  );
  return withDefaults(row);
}

/** The org's retention as settings, what it now is; the caller checks the numbers are sane. */
export async function setRetention(db: Db, orgId: string, update: RetentionUpdate): Promise<Retention> {
  const values = { orgId, ...update, updatedAt: new Date() };
  await query(db, (orm, { orgRetention: r }) =>
    orm
      .insert(r)
      .values(values)
      .onConflictDoUpdate({ target: r.orgId, set: { ...update, updatedAt: sql`excluded.updated_at` } }),
  );
  return retentionOf(db, orgId);
}

/** Every org's retention, its defaults filled in: what the retention jobs apply. */
export async function retentionOfEveryOrg(db: Db): Promise<Map<string, Retention>> {
  const rows = await query(db, (orm, { orgs, orgRetention: r }) =>
    orm
      .select({
        orgId: orgs.id,
        callsDays: r.callsDays,
        capturesDays: r.capturesDays,
        rollupsDays: r.rollupsDays,
      })
      .from(orgs)
      .leftJoin(r, eq(r.orgId, orgs.id)),
  );
  return new Map(rows.map((row) => [row.orgId, withDefaults(row)]));
}

const dayMs = 86_400_000;

/**
 * The oldest instant a retention of `days` keeps at `now`: the start of the UTC day `days` days
 * back. Data goes by whole UTC days (a partition is a day), so a row is kept at least `days` days
 * and at most one day more, and both stores prune the same rows.
 */
export function keptSince(now: Date, days: number): Date {
  const back = now.getTime() - days * dayMs;
  return new Date(back - (((back % dayMs) + dayMs) % dayMs));
}

/**
 * The oldest instant whose call rows the project's org still keeps at `now`: before it, the
 * reports read the hourly rollups only (`windowTotals`).
 */
export async function callsKeptSince(db: Db, projectId: string, now: Date): Promise<Date> {
  const [row] = await query(db, (orm, { projects: p, orgRetention: r }) =>
    orm
      .select({ callsDays: r.callsDays })
      .from(p)
      .leftJoin(r, eq(r.orgId, p.orgId))
      .where(eq(p.id, projectId)),
  );
  return keptSince(now, row?.callsDays ?? retentionDefaults.callsDays);
}
