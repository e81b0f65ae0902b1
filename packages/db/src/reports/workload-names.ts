import type { Db } from "../client.ts";
import { listProjectWorkloads } from "../workloads.ts";

/** The project's workloads, oldest first (the default workload is created with the project). */
export const projectWorkloads = (db: Db, projectId: string) => listProjectWorkloads(db, projectId);
