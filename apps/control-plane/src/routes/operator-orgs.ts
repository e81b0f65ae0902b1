import { listOrgs } from "@gateway/db";
import { z } from "zod";
import { type IdempotentCreate, runIdempotently } from "../idempotency.ts";
import { defineRoute, json, jsonBody, type RouteApp, type RouteSite } from "../openapi.ts";
import { createOrg } from "../services/orgs.ts";
import { afterId, pageOf } from "../services/paging.ts";
import { apiKeyCreatedSchema, orgObject, orgSchema, projectSchema } from "../services/serialize.ts";
import { pageQuery } from "../validate.ts";

const createOrgRequest = z.strictObject({ name: z.string().trim().min(1).max(200) });
const listOrgsQuery = pageQuery(20);
const orgCreatedResponse = z.strictObject({
  org: orgSchema,
  api_key: apiKeyCreatedSchema,
  default_project: projectSchema,
});
const orgCreate: IdempotentCreate = { secrets: ["api_key.value"] };
export const orgListResponse = z.strictObject({ orgs: z.array(orgSchema), cursor: z.string().nullable() });

/** /operator/v1/orgs */
export function registerOperatorOrgs(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(
      site,
      {
        method: "post",
        path: "/orgs",
        summary: "Create an org with its default project and starter key",
        description: "The starter key's value is in this response only.",
        request: { body: jsonBody(createOrgRequest) },
        responses: { 201: json("The org, its starter key and default project.", orgCreatedResponse) },
      },
      orgCreate,
    ),
    async (c) => {
      const body = c.req.valid("json");
      return runIdempotently(c, site.security, orgCreate, body, async () =>
        c.json(await createOrg(c.get("services"), body.name), 201),
      );
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/orgs",
      summary: "List orgs",
      request: { query: listOrgsQuery },
      responses: { 200: json("One page, oldest first.", orgListResponse) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const { db, cursors } = c.get("services");
      const after = afterId(cursors, "orgs", query.cursor);
      const rows = await listOrgs(db, after, query.limit + 1);
      const page = pageOf(rows, query.limit, cursors, "orgs");
      return c.json({ orgs: page.items.map(orgObject), cursor: page.cursor }, 200);
    },
  );
}
