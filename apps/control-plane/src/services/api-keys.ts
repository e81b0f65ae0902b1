import { newId, noLimits } from "@gateway/contracts";
import { apiKeys } from "@gateway/db";
import { and, asc, eq, isNull } from "drizzle-orm";
import { notFound } from "../errors.ts";
import { hashKey, mintKeyValue, obfuscateKey } from "./api-key-secret.ts";
import type { Services } from "./context.ts";
import { apiKeyMetadata } from "./serialize.ts";

type Tx = Pick<Services["db"], "insert">;

/** Mints a key for `orgId`; the plaintext is in the result and nowhere else, ever. */
export async function createApiKey(db: Tx, orgId: string, name: string | null) {
  const value = mintKeyValue();
  const [row] = await db
    .insert(apiKeys)
    .values({
      id: newId("apiKey"),
      orgId,
      name,
      keyHash: hashKey(value),
      obfuscatedValue: obfuscateKey(value),
    })
    .returning();
  return { value, row: row! };
}

/** Publishes a key just created: a new id has no limits yet. */
export async function publishNewApiKey(services: Services, row: typeof apiKeys.$inferSelect) {
  await services.sync.apiKey(row, noLimits());
}

export function apiKeyCreated(value: string, row: typeof apiKeys.$inferSelect) {
  return { value, metadata: apiKeyMetadata(row) };
}

export function listApiKeys(db: Services["db"], orgId: string) {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.orgId, orgId), isNull(apiKeys.revokedAt)))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

/** Revokes only a live key of `orgId`; anything else is indistinguishable from "no such key". */
export async function revokeApiKey(services: Services, orgId: string, keyId: string) {
  const [row] = await services.db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.orgId, orgId), isNull(apiKeys.revokedAt)))
    .returning();
  if (!row) throw notFound("API key");
  await services.sync.revokeApiKey(row.keyHash);
}
