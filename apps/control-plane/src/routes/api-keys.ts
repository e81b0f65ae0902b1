import { apiKeys } from "@gateway/db";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { Hono } from "hono";
import { z } from "zod";
import { notFound } from "../errors.ts";
import { apiKeyCreated, createApiKey, publishApiKey } from "../services/api-keys.ts";
import type { AppEnv } from "../services/context.ts";
import { apiKeyMetadata } from "../services/serialize.ts";
import { jsonBody } from "../validate.ts";

export const createApiKeyRequest = z.strictObject({ name: z.string().trim().min(1).max(200).optional() });

/** /admin/v1/orgs/:org_id/api_keys */
export function registerApiKeys(app: Hono<AppEnv>) {
  app.get("/api_keys", async (c) => {
    const rows = await c
      .get("services")
      .db.select()
      .from(apiKeys)
      .where(and(eq(apiKeys.orgId, c.get("orgId")), isNull(apiKeys.revokedAt)))
      .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
    return c.json({ api_keys: rows.map(apiKeyMetadata) });
  });

  app.post("/api_keys", async (c) => {
    const { name } = await jsonBody(c, createApiKeyRequest);
    const services = c.get("services");
    const { value, row } = await createApiKey(services.db, c.get("orgId"), name ?? null);
    await publishApiKey(services, row);
    return c.json(apiKeyCreated(value, row), 201);
  });

  app.delete("/api_keys/:key_id", async (c) => {
    const services = c.get("services");
    const [row] = await services.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(apiKeys.id, c.req.param("key_id")),
          eq(apiKeys.orgId, c.get("orgId")),
          isNull(apiKeys.revokedAt),
        ),
      )
      .returning();
    if (!row) throw notFound("API key");
    await services.sync.revokeApiKey(row.keyHash);
    return c.body(null, 204);
  });
}
