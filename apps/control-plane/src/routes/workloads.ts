import { newId } from "@gateway/contracts";
import { workloads } from "@gateway/db";
import { asc, eq } from "drizzle-orm";
import type { Hono } from "hono";
import { z } from "zod";
import { ApiError, notFound } from "../errors.ts";
import type { AppEnv } from "../services/context.ts";
import { findLiveProject } from "../services/projects.ts";
import { workloadObject } from "../services/serialize.ts";
import { jsonBody } from "../validate.ts";

export const workloadName = z
  .string()
  .regex(/^[a-z0-9_-]{1,63}$/, "1 to 63 lowercase letters, digits, hyphens or underscores");

export const createWorkloadRequest = z.strictObject({
  name: workloadName,
  capture_enabled: z.boolean().optional(),
});

/** /customer/v1/orgs/:org_id/projects/:project_id/workloads */
export function registerWorkloads(app: Hono<AppEnv>) {
  app.get("/workloads", async (c) => {
    const { db } = c.get("services");
    const project = await findLiveProject(db, c.get("orgId"), c.req.param("project_id")!);
    if (!project) throw notFound("Project");
    const rows = await db
      .select()
      .from(workloads)
      .where(eq(workloads.projectId, project.id))
      .orderBy(asc(workloads.createdAt), asc(workloads.id));
    return c.json({ workloads: rows.map(workloadObject) });
  });

  app.post("/workloads", async (c) => {
    const body = await jsonBody(c, createWorkloadRequest);
    const services = c.get("services");
    const project = await findLiveProject(services.db, c.get("orgId"), c.req.param("project_id")!);
    if (!project) throw notFound("Project");
    const [row] = await services.db
      .insert(workloads)
      .values({
        id: newId("workload"),
        projectId: project.id,
        name: body.name,
        captureEnabled: body.capture_enabled ?? true,
      })
      .onConflictDoNothing()
      .returning();
    if (!row)
      throw new ApiError("conflict", `A workload named '${body.name}' already exists in this project.`);
    await services.sync.workload(row);
    return c.json(workloadObject(row), 201);
  });
}
