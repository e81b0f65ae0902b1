import { newId, noLimits } from "@gateway/contracts";
import { projects, readLimits, workloads } from "@gateway/db";
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import { ApiError, notFound } from "../errors.ts";
import type { Services } from "./context.ts";

type Tx = Parameters<Parameters<Services["db"]["transaction"]>[0]>[0];

const defaultProjectSlug = "default";
const defaultWorkloadName = "main";

type ProjectRow = typeof projects.$inferSelect;

/** Publishes a project just created with its main workload: new ids, so neither has limits yet. */
async function publishNewProject(
  services: Services,
  created: { project: ProjectRow; workload: typeof workloads.$inferSelect },
) {
  await services.sync.project(created.project, noLimits());
  await services.sync.workload(created.workload, noLimits());
}

/**
 * A new project and its main (default) workload, in one transaction: every project has exactly
 * one default workload from its first moment. 409 while a live project holds the slug.
 */
export async function createProject(services: Services, orgId: string, slug: string, name: string) {
  if (slug === defaultProjectSlug) {
    // Reserved, so ensure-default can always (re)create the default project under its slug.
    throw new ApiError(
      "conflict",
      `The slug '${defaultProjectSlug}' is reserved for the default project; use POST /projects/default.`,
    );
  }
  const created = await services.db.transaction(async (tx) => {
    const [project] = await tx
      .insert(projects)
      .values({ id: newId("project"), orgId, slug, name })
      .onConflictDoNothing()
      .returning();
    if (!project) return null;
    const [workload] = await tx
      .insert(workloads)
      .values({ id: newId("workload"), projectId: project.id, name: defaultWorkloadName, isDefault: true })
      .returning();
    return { project, workload: workload! };
  });
  if (!created) throw new ApiError("conflict", `A live project already has the slug '${slug}'.`);
  await publishNewProject(services, created);
  return created.project;
}

/** One page of the org's live projects, oldest first. */
export async function listProjects(db: Services["db"], orgId: string, afterId: string | null, limit: number) {
  const live = and(eq(projects.orgId, orgId), isNull(projects.deletedAt));
  return db
    .select()
    .from(projects)
    .where(afterId ? and(live, gt(projects.id, afterId)) : live)
    .orderBy(asc(projects.id))
    .limit(limit + 1);
}

export async function findProjectBySlug(db: Services["db"], orgId: string, slug: string) {
  const [row] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.orgId, orgId), eq(projects.slug, slug), isNull(projects.deletedAt)));
  if (!row) throw notFound("Project");
  return row;
}

/** Renames a live project; the slug never changes, so the cache entry only needs refreshing. */
export async function renameProject(services: Services, orgId: string, slug: string, name: string) {
  // Published inside the transaction, under the row lock the update holds, so a concurrent
  // delete cannot be overtaken in the cache by this rename.
  return services.db.transaction(async (tx) => {
    const [row] = await tx
      .update(projects)
      .set({ name })
      .where(and(eq(projects.orgId, orgId), eq(projects.slug, slug), isNull(projects.deletedAt)))
      .returning();
    if (!row) throw notFound("Project");
    await services.sync.project(row, (await readLimits(tx, "project", row.id)).limits);
    return row;
  });
}

/**
 * Soft delete: the row stays (captures and calls keep pointing at it), the slug is free again,
 * and the gateway stops resolving the project as soon as its cache entries are gone.
 */
export async function deleteProject(services: Services, orgId: string, slug: string): Promise<ProjectRow> {
  return services.db.transaction(async (tx) => {
    const [row] = await tx
      .update(projects)
      .set({ deletedAt: new Date() })
      .where(and(eq(projects.orgId, orgId), eq(projects.slug, slug), isNull(projects.deletedAt)))
      .returning();
    if (!row) throw notFound("Project");
    await services.sync.removeProject(row);
    const rows = await tx.select().from(workloads).where(eq(workloads.projectId, row.id));
    await services.sync.deletedProjectWorkloads(row.id, rows);
    return row;
  });
}

/**
 * Returns the org's default project, creating it and its main workload when absent. Idempotent,
 * also under concurrent calls: the partial unique index allows one live default per org.
 */
export async function ensureDefaultProject(services: Services, orgId: string) {
  const existing = await findDefaultProject(services.db, orgId);
  if (existing) return existing;
  try {
    const created = await services.db.transaction(async (tx) => {
      const [project] = await tx
        .insert(projects)
        .values({ id: newId("project"), orgId, slug: defaultProjectSlug, name: "Default", isDefault: true })
        .returning();
      const [workload] = await tx
        .insert(workloads)
        .values({ id: newId("workload"), projectId: project!.id, name: defaultWorkloadName, isDefault: true })
        .returning();
      return { project: project!, workload: workload! };
    });
    await publishNewProject(services, created);
    return created.project;
  } catch (error) {
    // Lost a race with another request (or the slug "default" is taken by a non-default project).
    const winner = await findDefaultProject(services.db, orgId);
    if (winner) return winner;
    throw error;
  }
}

async function findDefaultProject(db: Services["db"] | Tx, orgId: string) {
  const [row] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.orgId, orgId), eq(projects.isDefault, true), isNull(projects.deletedAt)));
  return row;
}

/** A live project of the org by its `proj_` id. */
export async function findLiveProject(db: Services["db"], orgId: string, projectId: string) {
  const [row] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.orgId, orgId), eq(projects.id, projectId), isNull(projects.deletedAt)));
  return row;
}
