import { newId, noLimits } from "@gateway/contracts";
import { readLimits, workloads } from "@gateway/db";
import { and, asc, eq } from "drizzle-orm";
import { ApiError, notFound } from "../errors.ts";
import type { Services } from "./context.ts";
import { findLiveProject } from "./projects.ts";

export type WorkloadRow = typeof workloads.$inferSelect;
type Tx = Parameters<Parameters<Services["db"]["transaction"]>[0]>[0];
/** Column changes a PATCH or PUT computes from the row as it is (inside the row lock). */
export type WorkloadChanges = Partial<
  Pick<WorkloadRow, "name" | "captureEnabled" | "captureSampleRate" | "routeModelId" | "routeTrafficPct">
>;

/** The id of a live project of the org; 404 otherwise. */
export async function liveProjectId(db: Services["db"], orgId: string, projectId: string) {
  const project = await findLiveProject(db, orgId, projectId);
  if (!project) throw notFound("Project");
  return project.id;
}

const duplicateName = (name: string) =>
  new ApiError("conflict", `A workload named '${name}' already exists in this project.`);

/** Postgres and PGlite both report a unique violation as SQLSTATE 23505 (drizzle wraps it in `cause`). */
function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Object; e = (e as { cause?: unknown }).cause) {
    if ((e as { code?: unknown }).code === "23505") return true;
  }
  return false;
}

export async function listWorkloads(db: Services["db"], orgId: string, projectId: string) {
  const id = await liveProjectId(db, orgId, projectId);
  return db
    .select()
    .from(workloads)
    .where(eq(workloads.projectId, id))
    .orderBy(asc(workloads.createdAt), asc(workloads.id));
}

export async function createWorkload(
  services: Services,
  orgId: string,
  projectId: string,
  input: { name: string; captureEnabled: boolean },
) {
  const id = await liveProjectId(services.db, orgId, projectId);
  const [row] = await services.db
    .insert(workloads)
    .values({ id: newId("workload"), projectId: id, name: input.name, captureEnabled: input.captureEnabled })
    .onConflictDoNothing()
    .returning();
  if (!row) throw duplicateName(input.name);
  // a new id: no limits yet
  await services.sync.workload(row, noLimits());
  return row;
}

/**
 * Applies `compute(current)` to one workload of a live project of the org, under a row lock so
 * that rules depending on the current state (a new route defaults to 100%) cannot interleave.
 */
export async function updateWorkload(
  services: Services,
  orgId: string,
  projectId: string,
  workloadId: string,
  compute: (current: WorkloadRow, tx: Tx) => Promise<WorkloadChanges> | WorkloadChanges,
) {
  const id = await liveProjectId(services.db, orgId, projectId);
  let after: WorkloadRow;
  try {
    after = await services.db.transaction(async (tx) => {
      const [before] = await tx
        .select()
        .from(workloads)
        .where(and(eq(workloads.id, workloadId), eq(workloads.projectId, id)))
        .for("update");
      if (!before) throw notFound("Workload");
      const changes = await compute(before, tx);
      if (changes.name !== undefined && changes.name !== before.name) {
        const [taken] = await tx
          .select({ id: workloads.id })
          .from(workloads)
          .where(and(eq(workloads.projectId, id), eq(workloads.name, changes.name)));
        if (taken) throw duplicateName(changes.name);
      }
      const [updated] = await tx
        .update(workloads)
        .set({ ...changes, updatedAt: new Date() })
        .where(eq(workloads.id, before.id))
        .returning();
      // Published while the row lock is held, so that concurrent changes to this workload reach
      // the gateway's cache in the order they commit. The new name goes out before the old one
      // is dropped, so the workload never vanishes in between. Its limits are read under the same
      // lock, which a change of the limits takes too, so the entry keeps them.
      await services.sync.workload(updated!, (await readLimits(tx, "workload", updated!.id)).limits);
      if (before.name !== updated!.name) await services.sync.removeWorkload(before);
      return updated!;
    });
  } catch (error) {
    // A concurrent rename won the name between our check and our update.
    if (isUniqueViolation(error)) throw new ApiError("conflict", "That workload name was just taken.");
    throw error;
  }
  return after;
}

/** Deletes a non-default workload. Its captures and calls stay; they name it by id. */
export async function deleteWorkload(
  services: Services,
  orgId: string,
  projectId: string,
  workloadId: string,
) {
  const id = await liveProjectId(services.db, orgId, projectId);
  await services.db.transaction(async (tx) => {
    // Locked, so a rename cannot commit between reading the name and dropping its cache entry.
    const [row] = await tx
      .select()
      .from(workloads)
      .where(and(eq(workloads.id, workloadId), eq(workloads.projectId, id)))
      .for("update");
    if (!row) throw notFound("Workload");
    if (row.isDefault) {
      throw new ApiError(
        "conflict",
        "The default workload cannot be deleted; every project keeps exactly one.",
      );
    }
    await tx.delete(workloads).where(eq(workloads.id, row.id));
    await services.sync.removeWorkload(row);
  });
}
