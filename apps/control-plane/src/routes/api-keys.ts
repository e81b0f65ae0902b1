import { listApiKeys } from "@gateway/db";
import { z } from "zod";
import { pathParam, type RouteTable } from "../route-registry.ts";
import { apiKeyCreated, createApiKey, publishNewApiKey, revokeApiKey } from "../services/api-keys.ts";
import { apiKeyCreatedSchema, apiKeyMetadata, apiKeyMetadataSchema } from "../services/serialize.ts";

const createApiKeyRequest = z.strictObject({ name: z.string().trim().min(1).max(200).optional() });
const apiKeyListResponse = z.object({ api_keys: z.array(apiKeyMetadataSchema) });

/** /admin/v1/orgs/:org_id/api_keys */
export function registerApiKeys(t: RouteTable) {
  t.add(
    {
      method: "get",
      path: "/api_keys",
      summary: "List the org's live keys (metadata only)",
      responses: {
        200: { description: "Oldest first; never a value or a hash.", schema: apiKeyListResponse },
      },
    },
    async (c) => {
      const rows = await listApiKeys(c.get("services").db, c.get("orgId"));
      return c.json({ api_keys: rows.map(apiKeyMetadata) });
    },
  );

  t.add(
    {
      method: "post",
      path: "/api_keys",
      summary: "Create a key; its value is shown once",
      body: createApiKeyRequest,
      idempotent: { secrets: ["value"] },
      responses: {
        201: { description: "The value (only here) and the metadata.", schema: apiKeyCreatedSchema },
      },
    },
    async (c, { body }) => {
      const services = c.get("services");
      const { value, row } = await createApiKey(services.db, c.get("orgId"), body.name ?? null);
      await publishNewApiKey(services, row);
      return c.json(apiKeyCreated(value, row), 201);
    },
  );

  t.add(
    {
      method: "delete",
      path: "/api_keys/:key_id",
      summary: "Revoke a key of this org",
      description:
        "Every gateway refuses the key within 2 seconds. Unknown, foreign or revoked ids answer 404.",
      responses: { 204: { description: "Revoked." } },
    },
    async (c) => {
      await revokeApiKey(c.get("services"), c.get("orgId"), pathParam(c, "key_id"));
      return c.body(null, 204);
    },
  );
}
