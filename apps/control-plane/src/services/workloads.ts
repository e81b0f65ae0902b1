import { newId, noLimits } from "@gateway/contracts";
import {
  type Db,
  deleteWorkloadById,
  findWorkload,
  insertWorkload,
  inTransaction,
  listProjectWorkloads,
  readLimits,
  type WorkloadChanges,
  type WorkloadRow,
  workloadNameTaken,
  writeWorkloadChanges,
} from "@gateway/db";
import { ApiError, notFound } from "../errors.ts";
import type { Services } from "./context.ts";
import { liveProject } from "./projects.ts";

const duplicateName = (name: string) =>
  new ApiError("conflict", `A workload named '${name}' already exists in this project.`);

export async function listWorkloads(db: Db, orgId: string, projectId: string) {
  return listProjectWorkloads(db, (await liveProject(db, orgId, projectId)).id);
}

export async function createWorkload(
  services: Services,
  orgId: string,
  projectId: string,
  input: { name: string; captureEnabled: boolean },
) {
  const { id } = await liveProject(services.db, orgId, projectId);
  const row = await insertWorkload(services.db, {
    id: newId("workload"),
    projectId: id,
    name: input.name,
    captureEnabled: input.captureEnabled,
  });
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
  compute: (current: WorkloadRow, tx: Db) => Promise<WorkloadChanges> | WorkloadChanges,
) {
  const { id } = await liveProject(services.db, orgId, projectId);
  // A concurrent rename can win the name between the check and the write: its unique violation
  // answers 409 through the app's one conflict path (errors.ts, asApiError).
  return inTransaction(services.db, async (tx) => {
    const before = await findWorkload(tx, id, workloadId, { lock: true });
    if (!before) throw notFound("Workload");
    const changes = await compute(before, tx);
    if (changes.name !== undefined && changes.name !== before.name) {
      if (await workloadNameTaken(tx, id, changes.name)) throw duplicateName(changes.name);
    }
    const updated = await writeWorkloadChanges(tx, before.id, changes);
    // Published while the row lock is held, so that concurrent changes to this workload reach
    // the gateway's cache in the order they commit. The new name goes out before the old one
    // is dropped, so the workload never vanishes in between. Its limits are read under the same
    // lock, which a change of the limits takes too, so the entry keeps them.
    await services.sync.workload(updated, (await readLimits(tx, "workload", updated.id)).limits);
    if (before.name !== updated.name) await services.sync.removeWorkload(before);
    return updated;
  });
}

/** Deletes a non-default workload. Its captures and calls stay; they name it by id. */
export async function deleteWorkload(
  services: Services,
  orgId: string,
  projectId: string,
  workloadId: string,
) {
  const { id } = await liveProject(services.db, orgId, projectId);
  await inTransaction(services.db, async (tx) => {
    // Locked, so a rename cannot commit between reading the name and dropping its cache entry.
    const row = await findWorkload(tx, id, workloadId, { lock: true });
    if (!row) throw notFound("Workload");
    if (row.isDefault) {
      throw new ApiError(
        "conflict",
        "The default workload cannot be deleted; every project keeps exactly one.",
      );
    }
    await deleteWorkloadById(tx, row.id);
    await services.sync.removeWorkload(row);
  });
}
