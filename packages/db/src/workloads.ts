import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "./client.ts";
import { projects } from "./schema/projects.ts";
import { workloads } from "./schema/workloads.ts";

export type WorkloadRow = typeof workloads.$inferSelect;
/** Column changes a PATCH or PUT computes from the row as it is (inside the row lock). */
export type WorkloadChanges = Partial<
  Pick<WorkloadRow, "name" | "captureEnabled" | "captureSampleRate" | "routeModelId" | "routeTrafficPct">
>;

const ofProject = (projectId: string, workloadId: string) =>
  and(eq(workloads.id, workloadId), eq(workloads.projectId, projectId));

/** The project's workloads, oldest first. */
export function listProjectWorkloads(db: Db, projectId: string): Promise<WorkloadRow[]> {
  return db
    .select()
    .from(workloads)
    .where(eq(workloads.projectId, projectId))
    .orderBy(asc(workloads.createdAt), asc(workloads.id));
}

/** Every workload of every live project (the config rebuild publishes them all). */
export async function listWorkloadsOfLiveProjects(db: Db): Promise<WorkloadRow[]> {
  const rows = await db
    .select({ w: workloads })
    .from(workloads)
    .innerJoin(projects, and(eq(projects.id, workloads.projectId), isNull(projects.deletedAt)));
  return rows.map(({ w }) => w);
}

/** A new (not default) workload; null, and nothing written, when the project has one of that name. */
export async function insertWorkload(
  db: Db,
  workload: { id: string; projectId: string; name: string; captureEnabled: boolean },
): Promise<WorkloadRow | null> {
  const [row] = await db.insert(workloads).values(workload).onConflictDoNothing().returning();
  return row ?? null;
}

/** A workload of the project; with `lock`, its row stays locked to the end of the transaction. */
export async function findWorkload(
  db: Db,
  projectId: string,
  workloadId: string,
  options: { lock: boolean } = { lock: false },
): Promise<WorkloadRow | undefined> {
  const query = db.select().from(workloads).where(ofProject(projectId, workloadId));
  const [row] = await (options.lock ? query.for("update") : query);
  return row;
}

export async function workloadNameTaken(db: Db, projectId: string, name: string): Promise<boolean> {
  const [taken] = await db
    .select({ id: workloads.id })
    .from(workloads)
    .where(and(eq(workloads.projectId, projectId), eq(workloads.name, name)));
  return taken !== undefined;
}

/** Writes `changes` to a workload, stamping `updated_at`, and returns the row as it now is. */
export async function writeWorkloadChanges(
  db: Db,
  workloadId: string,
  changes: WorkloadChanges,
): Promise<WorkloadRow> {
  const [row] = await db
    .update(workloads)
    .set({ ...changes, updatedAt: new Date() })
    .where(eq(workloads.id, workloadId))
    .returning();
  return row!;
}

export async function deleteWorkloadById(db: Db, workloadId: string): Promise<void> {
  await db.delete(workloads).where(eq(workloads.id, workloadId));
}
