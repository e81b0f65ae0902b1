import { newId } from "@gateway/contracts";
import { projects, workloads } from "@gateway/db";
import { and, eq, isNull } from "drizzle-orm";
import type { Services } from "./context.ts";

type Tx = Parameters<Parameters<Services["db"]["transaction"]>[0]>[0];

export const defaultProjectSlug = "default";
export const defaultWorkloadName = "main";

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
    await services.sync.project(created.project);
    await services.sync.workload(created.workload);
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
