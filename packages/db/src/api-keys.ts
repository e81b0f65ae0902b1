import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "./client.ts";
import { apiKeys } from "./schema/api-keys.ts";

export type ApiKeyRow = typeof apiKeys.$inferSelect;
type NewApiKey = Pick<typeof apiKeys.$inferInsert, "id" | "orgId" | "name" | "keyHash" | "obfuscatedValue">;

const liveKeyOf = (orgId: string, keyId: string) =>
  and(eq(apiKeys.id, keyId), eq(apiKeys.orgId, orgId), isNull(apiKeys.revokedAt));

/** The org of the live (not revoked) key stored under `keyHash`; null for any other hash. */
export async function orgOfLiveApiKey(db: Db, keyHash: string): Promise<string | null> {
  const [key] = await db
    .select({ orgId: apiKeys.orgId })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)));
  return key?.orgId ?? null;
}

export async function insertApiKey(db: Db, key: NewApiKey): Promise<ApiKeyRow> {
  const [row] = await db.insert(apiKeys).values(key).returning();
  return row!;
}

/** The org's live keys, oldest first. */
export function listApiKeys(db: Db, orgId: string): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.orgId, orgId), isNull(apiKeys.revokedAt)))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

/** Every live key of every org (the config rebuild publishes them all). */
export function listAllLiveApiKeys(db: Db): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(isNull(apiKeys.revokedAt));
}

/** A live key of the org; with `lock`, its row stays locked to the end of the transaction. */
export async function findLiveApiKey(
  db: Db,
  orgId: string,
  keyId: string,
  options: { lock: boolean } = { lock: false },
): Promise<ApiKeyRow | undefined> {
  const query = db.select().from(apiKeys).where(liveKeyOf(orgId, keyId));
  const [row] = await (options.lock ? query.for("update") : query);
  return row;
}

/** Revokes a live key of the org, now; undefined when there is none (or it was revoked already). */
export async function revokeLiveApiKey(db: Db, orgId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(liveKeyOf(orgId, keyId))
    .returning();
  return row;
}
