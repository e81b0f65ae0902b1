import { and, asc, eq, gt, isNull, type SQL } from "drizzle-orm";
import type { Db } from "./client.ts";
import { builder, inTransaction, isSqlite, query } from "./dialect.ts";
import type { projects } from "./schema/projects.ts";
import type { WorkloadRow } from "./workloads.ts";

export type ProjectRow = typeof projects.$inferSelect;

interface NewProject {
  id: string;
  orgId: string;
  slug: string;
  name: string;
  isDefault: boolean;
}

/** The org's live (not deleted) projects, those that match `where` when given. */
const liveOf = (p: typeof projects, orgId: string, where?: SQL) =>
  and(eq(p.orgId, orgId), isNull(p.deletedAt), where);

/**
 * A new project with its default workload, in one transaction: a project never exists without
 * one. Null, and nothing written, when a unique index refuses the project (a live project of the
 * org holds the slug, or the org has a live default project already).
 */
export async function insertProjectWithDefaultWorkload(
  db: Db,
  project: NewProject,
  workload: { id: string; name: string },
): Promise<{ project: ProjectRow; workload: WorkloadRow } | null> {
  return inTransaction(db, async (tx) => {
    const { orm, t } = builder(tx);
    const [row] = await orm.insert(t.projects).values(project).onConflictDoNothing().returning();
    if (!row) return null;
    const [main] = await orm
      .insert(t.workloads)
      .values({ ...workload, projectId: row.id, isDefault: true })
      .returning();
    return { project: row, workload: main! };
  });
}

/** Up to `limit` of the org's live projects in id order, after `afterId` when given. */
export async function listLiveProjects(db: Db, orgId: string, afterId: string | null, limit: number) {
  return query(db, (orm, t) =>
    orm
      .select()
      .from(t.projects)
      .where(liveOf(t.projects, orgId, afterId ? gt(t.projects.id, afterId) : undefined))
      .orderBy(asc(t.projects.id))
      .limit(limit),
  );
}

/** Every live project of every org (the config rebuild publishes them all). */
export async function listAllLiveProjects(db: Db): Promise<ProjectRow[]> {
  return query(db, (orm, t) => orm.select().from(t.projects).where(isNull(t.projects.deletedAt)));
}

/** A live project of the org by its `proj_` id; with `lock`, its row stays locked to the end of the transaction. */
export async function findLiveProject(
  db: Db,
  orgId: string,
  projectId: string,
  options: { lock: boolean } = { lock: false },
): Promise<ProjectRow | undefined> {
  const [row] = await query(db, (orm, t) => {
    const select = orm
      .select()
      .from(t.projects)
      .where(liveOf(t.projects, orgId, eq(t.projects.id, projectId)));
    return options.lock && !isSqlite(db) ? select.for("update") : select;
  });
  return row;
}

/** The live project of the org that matches `where`. */
async function findLiveProjectWhere(
  db: Db,
  orgId: string,
  where: (p: typeof projects) => SQL,
): Promise<ProjectRow | undefined> {
  const [row] = await query(db, (orm, t) =>
    orm
      .select()
      .from(t.projects)
      .where(liveOf(t.projects, orgId, where(t.projects))),
  );
  return row;
}

export function findLiveProjectBySlug(db: Db, orgId: string, slug: string): Promise<ProjectRow | undefined> {
  return findLiveProjectWhere(db, orgId, (p) => eq(p.slug, slug));
}

export function findLiveDefaultProject(db: Db, orgId: string): Promise<ProjectRow | undefined> {
  return findLiveProjectWhere(db, orgId, (p) => eq(p.isDefault, true));
}

/** Writes `changes` to a live project of the org found by slug; the row as it now is. */
async function updateLiveProject(
  db: Db,
  orgId: string,
  slug: string,
  changes: Partial<Pick<ProjectRow, "name" | "deletedAt">>,
): Promise<ProjectRow | undefined> {
  const [row] = await query(db, (orm, t) =>
    orm
      .update(t.projects)
      .set(changes)
      .where(liveOf(t.projects, orgId, eq(t.projects.slug, slug)))
      .returning(),
  );
  return row;
}

/** Renames a live project of the org; the returned row stays locked to the end of the transaction. */
export function renameLiveProject(db: Db, orgId: string, slug: string, name: string) {
  return updateLiveProject(db, orgId, slug, { name });
}

/** Marks a live project of the org deleted, now: the row stays, its slug is free again. */
export function softDeleteLiveProject(db: Db, orgId: string, slug: string) {
  return updateLiveProject(db, orgId, slug, { deletedAt: new Date() });
}
