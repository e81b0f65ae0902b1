import { newId } from "@gateway/contracts";
import { apiKeys } from "@gateway/db";
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

export async function publishApiKey(services: Services, row: typeof apiKeys.$inferSelect) {
  await services.sync.apiKey(row.keyHash, { id: row.id, orgId: row.orgId });
}

export function apiKeyCreated(value: string, row: typeof apiKeys.$inferSelect) {
  return { value, metadata: apiKeyMetadata(row) };
}
