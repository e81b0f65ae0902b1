import { listOrgs } from "@gateway/db";
import { z } from "zod";
import type { RouteTable } from "../route-registry.ts";
import { createOrg } from "../services/orgs.ts";
import { afterId, pageOf } from "../services/paging.ts";
import { apiKeyCreatedSchema, orgObject, orgSchema, projectSchema } from "../services/serialize.ts";
import { pageQuery } from "../validate.ts";

const createOrgRequest = z.strictObject({ name: z.string().trim().min(1).max(200) });
const listOrgsQuery = pageQuery(20);
const orgCreatedResponse = z.object({
  org: orgSchema,
  api_key: apiKeyCreatedSchema,
  default_project: projectSchema,
});
const orgListResponse = z.object({ orgs: z.array(orgSchema), cursor: z.string().nullable() });

/** /operator/v1/orgs */
export function registerOperatorOrgs(t: RouteTable) {
  t.add(
    {
      method: "post",
      path: "/orgs",
      summary: "Create an org with its default project and starter key",
      description: "The starter key's value is in this response only.",
      body: createOrgRequest,
      idempotent: { secrets: ["api_key.value"] },
      responses: {
        201: { description: "The org, its starter key and default project.", schema: orgCreatedResponse },
      },
    },
    async (c, { body }) => c.json(await createOrg(c.get("services"), body.name), 201),
  );

  t.add(
    {
      method: "get",
      path: "/orgs",
      summary: "List orgs",
      query: listOrgsQuery,
      responses: { 200: { description: "One page, oldest first.", schema: orgListResponse } },
    },
    async (c, { query }) => {
      const { db, cursors } = c.get("services");
      const after = afterId(cursors, "orgs", query.cursor);
      const rows = await listOrgs(db, after, query.limit + 1);
      const page = pageOf(rows, query.limit, cursors, "orgs");
      return c.json({ orgs: page.items.map(orgObject), cursor: page.cursor });
    },
  );
}
