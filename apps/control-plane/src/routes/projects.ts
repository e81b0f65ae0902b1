import { projects } from "@gateway/db";
import { and, eq, isNull } from "drizzle-orm";
import type { Hono } from "hono";
import { notFound } from "../errors.ts";
import type { AppEnv } from "../services/context.ts";
import { ensureDefaultProject } from "../services/projects.ts";
import { projectObject } from "../services/serialize.ts";

/** /admin/v1/orgs/:org_id/projects */
export function registerProjects(app: Hono<AppEnv>) {
  app.post("/projects/default", async (c) => {
    const project = await ensureDefaultProject(c.get("services"), c.get("orgId"));
    return c.json(projectObject(project));
  });

  app.get("/projects/:slug", async (c) => {
    const [row] = await c
      .get("services")
      .db.select()
      .from(projects)
      .where(
        and(
          eq(projects.orgId, c.get("orgId")),
          eq(projects.slug, c.req.param("slug")),
          isNull(projects.deletedAt),
        ),
      );
    if (!row) throw notFound("Project");
    return c.json(projectObject(row));
  });
}
