import { asc, eq } from "drizzle-orm";
import type { Db } from "../client.ts";
import { workloads } from "../schema/workloads.ts";

/** The project's workloads, oldest first (the default workload is created with the project). */
export function projectWorkloads(db: Db, projectId: string) {
  return db
    .select()
    .from(workloads)
    .where(eq(workloads.projectId, projectId))
    .orderBy(asc(workloads.createdAt), asc(workloads.id));
}
