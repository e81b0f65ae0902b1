import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "./client.ts";
import { isSqlite, query } from "./dialect.ts";
import type { workloads } from "./schema/workloads.ts";

export type WorkloadRow = typeof workloads.$inferSelect;
/** Column changes a PATCH or PUT computes from the row as it is (inside the row lock). */
export type WorkloadChanges = Partial<
  Pick<WorkloadRow, "name" | "captureEnabled" | "captureSampleRate" | "routeModelId" | "routeTrafficPct">
>;

const ofProject = (w: typeof workloads, projectId: string, workloadId: string) =>
  and(eq(w.id, workloadId), eq(w.projectId, projectId));

/** The project's workloads, oldest first. */
export async function listProjectWorkloads(db: Db, projectId: string): Promise<WorkloadRow[]> {
  return query(db, (orm, t) =>
    orm
      .select()
      .from(t.workloads)
      .where(eq(t.workloads.projectId, projectId))
      .orderBy(asc(t.workloads.createdAt), asc(t.workloads.id)),
  );
}

/** Every workload of every live project (the config rebuild publishes them all). */
export async function listWorkloadsOfLiveProjects(db: Db): Promise<WorkloadRow[]> {
  const rows = await query(db, (orm, t) =>
    orm
      .select({ w: t.workloads })
      .from(t.workloads)
      .innerJoin(t.projects, and(eq(t.projects.id, t.workloads.projectId), isNull(t.projects.deletedAt))),
  );
  return rows.map(({ w }) => w);
}

/** A new (not default) workload; null, and nothing written, when the project has one of that name. */
export async function insertWorkload(
  db: Db,
  workload: { id: string; projectId: string; name: string; captureEnabled: boolean },
): Promise<WorkloadRow | null> {
  const [row] = await query(db, (orm, t) =>
    orm.insert(t.workloads).values(workload).onConflictDoNothing().returning(),
  );
  return row ?? null;
}

/** A workload of the project; with `lock`, its row stays locked to the end of the transaction. */
export async function findWorkload(
  db: Db,
  projectId: string,
  workloadId: string,
  options: { lock: boolean } = { lock: false },
): Promise<WorkloadRow | undefined> {
  const [row] = await query(db, (orm, t) => {
    const select = orm
      .select()
      .from(t.workloads)
      .where(ofProject(t.workloads, projectId, workloadId));
    return options.lock && !isSqlite(db) ? select.for("update") : select;
  });
  return row;
}

export async function workloadNameTaken(db: Db, projectId: string, name: string): Promise<boolean> {
  const [taken] = await query(db, (orm, t) =>
    orm
      .select({ id: t.workloads.id })
      .from(t.workloads)
      .where(and(eq(t.workloads.projectId, projectId), eq(t.workloads.name, name))),
  );
  return taken !== undefined;
}

/** Writes `changes` to a workload, stamping `updated_at`, and returns the row as it now is. */
export async function writeWorkloadChanges(
  db: Db,
  workloadId: string,
  changes: WorkloadChanges,
): Promise<WorkloadRow> {
  const [row] = await query(db, (orm, t) =>
    orm
      .update(t.workloads)
      .set({ ...changes, updatedAt: new Date() })
      .where(eq(t.workloads.id, workloadId))
      .returning(),
  );
  return row!;
}

export async function deleteWorkloadById(db: Db, workloadId: string): Promise<void> {
  await query(db, (orm, t) => orm.delete(t.workloads).where(eq(t.workloads.id, workloadId)));
}
