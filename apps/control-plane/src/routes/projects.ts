import { z } from "zod";
import { pathParam, type RouteTable } from "../route-registry.ts";
import { afterId, pageOf } from "../services/paging.ts";
import {
  createProject,
  deleteProject,
  ensureDefaultProject,
  findProjectBySlug,
  listProjects,
  renameProject,
} from "../services/projects.ts";
import { projectObject, projectSchema } from "../services/serialize.ts";
import { pageQuery } from "../validate.ts";

const projectSlug = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,62}$/,
    "1 to 63 lowercase letters, digits, hyphens or underscores, starting with a letter or digit",
  )
  .meta({ description: "Immutable; travels in the `x-gateway-project` header." });

const projectName = z.string().trim().min(1).max(200);

const createProjectRequest = z.strictObject({ slug: projectSlug, name: projectName });
const renameProjectRequest = z.strictObject({ name: projectName });
const ensureDefaultProjectRequest = z.strictObject({});
const listProjectsQuery = pageQuery(20);
const projectListResponse = z.object({
  projects: z.array(projectSchema),
  cursor: z
    .string()
    .nullable()
    .meta({ description: "Pass back as `cursor` for the next page; null on the last." }),
});

/** /admin/v1/orgs/:org_id/projects */
export function registerProjects(t: RouteTable) {
  t.add(
    {
      method: "get",
      path: "/projects",
      summary: "List the org's live projects",
      query: listProjectsQuery,
      responses: { 200: { description: "One page, oldest first.", schema: projectListResponse } },
    },
    async (c, { query }) => {
      const { db, cursors } = c.get("services");
      const orgId = c.get("orgId");
      const scope = `projects:${orgId}`;
      const rows = await listProjects(db, orgId, afterId(cursors, scope, query.cursor), query.limit);
      const page = pageOf(rows, query.limit, cursors, scope);
      return c.json({ projects: page.items.map(projectObject), cursor: page.cursor });
    },
  );

  t.add(
    {
      method: "post",
      path: "/projects",
      summary: "Create a project (with its main workload)",
      body: createProjectRequest,
      idempotent: {},
      responses: {
        201: { description: "The new project.", schema: projectSchema },
        409: { description: "A live project holds the slug, or the slug is `default`." },
      },
    },
    async (c, { body }) => {
      const project = await createProject(c.get("services"), c.get("orgId"), body.slug, body.name);
      return c.json(projectObject(project), 201);
    },
  );

  t.add(
    {
      method: "post",
      path: "/projects/default",
      summary: "Ensure the default project exists",
      description: "Idempotent: creates the default project and its main workload when absent.",
      body: ensureDefaultProjectRequest,
      idempotent: {},
      responses: { 200: { description: "The default project.", schema: projectSchema } },
    },
    async (c) => c.json(projectObject(await ensureDefaultProject(c.get("services"), c.get("orgId")))),
  );

  t.add(
    {
      method: "get",
      path: "/projects/:slug",
      summary: "Get a live project by slug",
      responses: { 200: { description: "The project.", schema: projectSchema } },
    },
    async (c) =>
      c.json(
        projectObject(await findProjectBySlug(c.get("services").db, c.get("orgId"), pathParam(c, "slug"))),
      ),
  );

  t.add(
    {
      method: "patch",
      path: "/projects/:slug",
      summary: "Rename a project (the slug never changes)",
      body: renameProjectRequest,
      responses: { 200: { description: "The renamed project.", schema: projectSchema } },
    },
    async (c, { body }) => {
      const row = await renameProject(c.get("services"), c.get("orgId"), pathParam(c, "slug"), body.name);
      return c.json(projectObject(row));
    },
  );

  t.add(
    {
      method: "delete",
      path: "/projects/:slug",
      summary: "Soft-delete a project",
      description:
        "Drops out of listings, stops resolving on the gateway, frees the slug; written captures remain.",
      responses: { 204: { description: "Deleted." } },
    },
    async (c) => {
      await deleteProject(c.get("services"), c.get("orgId"), pathParam(c, "slug"));
      return c.body(null, 204);
    },
  );
}
