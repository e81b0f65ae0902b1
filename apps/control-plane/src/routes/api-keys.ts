import { listApiKeys } from "@gateway/db";
import { z } from "zod";
import { type IdempotentCreate, runIdempotently } from "../idempotency.ts";
import { defineRoute, json, jsonBody, type RouteApp, type RouteSite } from "../openapi.ts";
import { apiKeyCreated, createApiKey, publishNewApiKey, revokeApiKey } from "../services/api-keys.ts";
import { apiKeyCreatedSchema, apiKeyMetadata, apiKeyMetadataSchema } from "../services/serialize.ts";
import { keyPath, orgPath } from "./path-params.ts";

const createApiKeyRequest = z.strictObject({ name: z.string().trim().min(1).max(200).optional() });
export const apiKeyListResponse = z.strictObject({ api_keys: z.array(apiKeyMetadataSchema) });
const keyCreate: IdempotentCreate = { secrets: ["value"] };

/** /admin/v1/orgs/:org_id/api_keys */
export function registerApiKeys(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/api_keys",
      summary: "List the org's live keys (metadata only)",
      request: { params: orgPath },
      responses: { 200: json("Oldest first; never a value or a hash.", apiKeyListResponse) },
    }),
    async (c) => {
      const rows = await listApiKeys(c.get("services").db, c.get("orgId"));
      return c.json({ api_keys: rows.map(apiKeyMetadata) }, 200);
    },
  );

  app.openapi(
    defineRoute(
      site,
      {
        method: "post",
        path: "/api_keys",
        summary: "Create a key; its value is shown once",
        request: { params: orgPath, body: jsonBody(createApiKeyRequest) },
        responses: { 201: json("The value (only here) and the metadata.", apiKeyCreatedSchema) },
      },
      keyCreate,
    ),
    async (c) => {
      const body = c.req.valid("json");
      return runIdempotently(c, site.security, keyCreate, body, async () => {
        const services = c.get("services");
        const { value, row } = await createApiKey(services.db, c.get("orgId"), body.name ?? null);
        await publishNewApiKey(services, row);
        return c.json(apiKeyCreated(value, row), 201);
      });
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "delete",
      path: "/api_keys/{key_id}",
      summary: "Revoke a key of this org",
      description:
        "Every gateway refuses the key within 2 seconds. Unknown, foreign or revoked ids answer 404.",
      request: { params: keyPath },
      responses: { 204: { description: "Revoked." } },
    }),
    async (c) => {
      await revokeApiKey(c.get("services"), c.get("orgId"), c.req.valid("param").key_id);
      return c.body(null, 204);
    },
  );
}
