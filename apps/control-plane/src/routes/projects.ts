import { z } from "zod";
import { type IdempotentCreate, runIdempotently } from "../idempotency.ts";
import { defineRoute, json, jsonBody, type RouteApp, type RouteSite } from "../openapi.ts";
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
import { orgPath } from "./path-params.ts";

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
const slugPath = orgPath.extend({ slug: z.string() });
const create: IdempotentCreate = {};
export const projectListResponse = z.strictObject({
  projects: z.array(projectSchema),
  cursor: z
    .string()
    .nullable()
    .meta({ description: "Pass back as `cursor` for the next page; null on the last." }),
});

/** /admin/v1/orgs/:org_id/projects */
export function registerProjects(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/projects",
      summary: "List the org's live projects",
      request: { params: orgPath, query: listProjectsQuery },
      responses: { 200: json("One page, oldest first.", projectListResponse) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const { db, cursors } = c.get("services");
      const orgId = c.get("orgId");
      const scope = `projects:${orgId}`;
      const rows = await listProjects(db, orgId, afterId(cursors, scope, query.cursor), query.limit);
      const page = pageOf(rows, query.limit, cursors, scope);
      return c.json({ projects: page.items.map(projectObject), cursor: page.cursor }, 200);
    },
  );

  app.openapi(
    defineRoute(
      site,
      {
        method: "post",
        path: "/projects",
        summary: "Create a project (with its main workload)",
        request: { params: orgPath, body: jsonBody(createProjectRequest) },
        responses: {
          201: json("The new project.", projectSchema),
          409: { description: "A live project holds the slug, or the slug is `default`." },
        },
      },
      create,
    ),
    async (c) => {
      const body = c.req.valid("json");
      return runIdempotently(c, site.security, create, body, async () => {
        const project = await createProject(c.get("services"), c.get("orgId"), body.slug, body.name);
        return c.json(projectObject(project), 201);
      });
    },
  );

  app.openapi(
    defineRoute(
      site,
      {
        method: "post",
        path: "/projects/default",
        summary: "Ensure the default project exists",
        description: "Idempotent: creates the default project and its main workload when absent.",
        request: { params: orgPath, body: jsonBody(ensureDefaultProjectRequest) },
        responses: { 200: json("The default project.", projectSchema) },
      },
      create,
    ),
    async (c) =>
      runIdempotently(c, site.security, create, c.req.valid("json"), async () =>
        c.json(projectObject(await ensureDefaultProject(c.get("services"), c.get("orgId"))), 200),
      ),
  );

  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/projects/{slug}",
      summary: "Get a live project by slug",
      request: { params: slugPath },
      responses: { 200: json("The project.", projectSchema) },
    }),
    async (c) => {
      const { db } = c.get("services");
      return c.json(
        projectObject(await findProjectBySlug(db, c.get("orgId"), c.req.valid("param").slug)),
        200,
      );
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "patch",
      path: "/projects/{slug}",
      summary: "Rename a project (the slug never changes)",
      request: { params: slugPath, body: jsonBody(renameProjectRequest) },
      responses: { 200: json("The renamed project.", projectSchema) },
    }),
    async (c) => {
      const { slug } = c.req.valid("param");
      const row = await renameProject(c.get("services"), c.get("orgId"), slug, c.req.valid("json").name);
      return c.json(projectObject(row), 200);
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "delete",
      path: "/projects/{slug}",
      summary: "Soft-delete a project",
      description:
        "Drops out of listings, stops resolving on the gateway, frees the slug; written captures remain.",
      request: { params: slugPath },
      responses: { 204: { description: "Deleted." } },
    }),
    async (c) => {
      await deleteProject(c.get("services"), c.get("orgId"), c.req.valid("param").slug);
      return c.body(null, 204);
    },
  );
}
