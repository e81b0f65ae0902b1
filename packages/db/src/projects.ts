import { and, asc, eq, gt, isNull, type SQL } from "drizzle-orm";
import type { Db } from "./client.ts";
import { projects } from "./schema/projects.ts";
import { workloads } from "./schema/workloads.ts";
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
const liveOf = (orgId: string, where?: SQL) =>
  and(eq(projects.orgId, orgId), isNull(projects.deletedAt), where);

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
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(projects).values(project).onConflictDoNothing().returning();
    if (!row) return null;
    const [main] = await tx
      .insert(workloads)
      .values({ ...workload, projectId: row.id, isDefault: true })
      .returning();
    return { project: row, workload: main! };
  });
}

/** Up to `limit` of the org's live projects in id order, after `afterId` when given. */
export function listLiveProjects(db: Db, orgId: string, afterId: string | null, limit: number) {
  return db
    .select()
    .from(projects)
    .where(liveOf(orgId, afterId ? gt(projects.id, afterId) : undefined))
    .orderBy(asc(projects.id))
    .limit(limit);
}

/** Every live project of every org (the config rebuild publishes them all). */
export function listAllLiveProjects(db: Db): Promise<ProjectRow[]> {
  return db.select().from(projects).where(isNull(projects.deletedAt));
}

/** A live project of the org by its `proj_` id; with `lock`, its row stays locked to the end of the transaction. */
export async function findLiveProject(
  db: Db,
  orgId: string,
  projectId: string,
  options: { lock: boolean } = { lock: false },
): Promise<ProjectRow | undefined> {
  const query = db
    .select()
    .from(projects)
    .where(liveOf(orgId, eq(projects.id, projectId)));
  const [row] = await (options.lock ? query.for("update") : query);
  return row;
}

export async function findLiveProjectBySlug(
  db: Db,
  orgId: string,
  slug: string,
): Promise<ProjectRow | undefined> {
  const [row] = await db
    .select()
    .from(projects)
    .where(liveOf(orgId, eq(projects.slug, slug)));
  return row;
}

export async function findLiveDefaultProject(db: Db, orgId: string): Promise<ProjectRow | undefined> {
  const [row] = await db
    .select()
    .from(projects)
    .where(liveOf(orgId, eq(projects.isDefault, true)));
  return row;
}

/** Renames a live project of the org; the returned row stays locked to the end of the transaction. */
export async function renameLiveProject(
  db: Db,
  orgId: string,
  slug: string,
  name: string,
): Promise<ProjectRow | undefined> {
  const [row] = await db
    .update(projects)
    .set({ name })
    .where(liveOf(orgId, eq(projects.slug, slug)))
    .returning();
  return row;
}

/** Marks a live project of the org deleted, now: the row stays, its slug is free again. */
export async function softDeleteLiveProject(
  db: Db,
  orgId: string,
  slug: string,
): Promise<ProjectRow | undefined> {
  const [row] = await db
    .update(projects)
    .set({ deletedAt: new Date() })
    .where(liveOf(orgId, eq(projects.slug, slug)))
    .returning();
  return row;
}
