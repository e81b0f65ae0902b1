import { newId, noLimits } from "@gateway/contracts";
import {
  type Db,
  findLiveDefaultProject,
  findLiveProject,
  findLiveProjectBySlug,
  insertProjectWithDefaultWorkload,
  inTransaction,
  listLiveProjects,
  listProjectWorkloads,
  type ProjectRow,
  readLimits,
  renameLiveProject,
  softDeleteLiveProject,
  type WorkloadRow,
} from "@gateway/db";
import { ApiError, notFound } from "../errors.ts";
import type { Services } from "./context.ts";

const defaultProjectSlug = "default";
const defaultWorkloadName = "main";

/** A new project of the org with its main (default) workload; null when a unique index refuses it. */
function insertProject(
  services: Services,
  project: { orgId: string; slug: string; name: string; isDefault: boolean },
) {
  return insertProjectWithDefaultWorkload(
    services.db,
    { id: newId("project"), ...project },
    { id: newId("workload"), name: defaultWorkloadName },
  );
}

/** Publishes a project just created with its main workload: new ids, so neither has limits yet. */
async function publishNewProject(
  services: Services,
  created: { project: ProjectRow; workload: WorkloadRow },
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
  const created = await insertProject(services, { orgId, slug, name, isDefault: false });
  if (!created) throw new ApiError("conflict", `A live project already has the slug '${slug}'.`);
  await publishNewProject(services, created);
  return created.project;
}

/** One page of the org's live projects, oldest first, with one row more when another page follows. */
export function listProjects(db: Db, orgId: string, afterId: string | null, limit: number) {
  return listLiveProjects(db, orgId, afterId, limit + 1);
}

/**
 * The org's live project (not soft-deleted) by its `proj_` id; 404 otherwise. With `lock`, its
 * row stays locked to the end of the transaction.
 */
export async function liveProject(db: Db, orgId: string, projectId: string, options = { lock: false }) {
  const row = await findLiveProject(db, orgId, projectId, options);
  if (!row) throw notFound("Project");
  return row;
}

export async function findProjectBySlug(db: Db, orgId: string, slug: string) {
  const row = await findLiveProjectBySlug(db, orgId, slug);
  if (!row) throw notFound("Project");
  return row;
}

/** Renames a live project; the slug never changes, so the cache entry only needs refreshing. */
export async function renameProject(services: Services, orgId: string, slug: string, name: string) {
  // Published inside the transaction, under the row lock the update holds, so a concurrent
  // delete cannot be overtaken in the cache by this rename.
  return inTransaction(services.db, async (tx) => {
    const row = await renameLiveProject(tx, orgId, slug, name);
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
  return inTransaction(services.db, async (tx) => {
    const row = await softDeleteLiveProject(tx, orgId, slug);
    if (!row) throw notFound("Project");
    await services.sync.removeProject(row);
    await services.sync.deletedProjectWorkloads(row.id, await listProjectWorkloads(tx, row.id));
    return row;
  });
}

/**
 * Returns the org's default project, creating it and its main workload when absent. Idempotent,
 * also under concurrent calls: the partial unique index allows one live default per org.
 */
export async function ensureDefaultProject(services: Services, orgId: string) {
  const existing = await findLiveDefaultProject(services.db, orgId);
  if (existing) return existing;
  // No project back means a unique index refused it: another request won the race (its default
  // is returned below), or a project that is not the default holds the slug (one stored before
  // createProject reserved it). A failure is answered the same way, as the default may exist all
  // the same (when publishing failed after the commit).
  let failure: unknown = new Error(
    `The slug '${defaultProjectSlug}' is taken by a project that is not the default`,
  );
  try {
    const created = await insertProject(services, {
      orgId,
      slug: defaultProjectSlug,
      name: "Default",
      isDefault: true,
    });
    if (created) {
      await publishNewProject(services, created);
      return created.project;
    }
  } catch (error) {
    failure = error;
  }
  const winner = await findLiveDefaultProject(services.db, orgId);
  if (winner) return winner;
  throw failure;
}
