import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "./client.ts";
import { apiKeys } from "./schema/api-keys.ts";

/** The org of the live (not revoked) key stored under `keyHash`; null for any other hash. */
export async function orgOfLiveApiKey(db: Db, keyHash: string): Promise<string | null> {
  const [key] = await db
    .select({ orgId: apiKeys.orgId })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)));
  return key?.orgId ?? null;
}
