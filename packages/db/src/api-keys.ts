import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "./client.ts";
import { isSqlite, query } from "./dialect.ts";
import type { apiKeys } from "./schema/api-keys.ts";

export type ApiKeyRow = typeof apiKeys.$inferSelect;
type NewApiKey = Pick<typeof apiKeys.$inferInsert, "id" | "orgId" | "name" | "keyHash" | "obfuscatedValue">;

const liveKeyOf = (k: typeof apiKeys, orgId: string, keyId: string) =>
  and(eq(k.id, keyId), eq(k.orgId, orgId), isNull(k.revokedAt));

/** The org of the live (not revoked) key stored under `keyHash`; null for any other hash. */
export async function orgOfLiveApiKey(db: Db, keyHash: string): Promise<string | null> {
  const [key] = await query(db, (orm, t) =>
    orm
      .select({ orgId: t.apiKeys.orgId })
      .from(t.apiKeys)
      .where(and(eq(t.apiKeys.keyHash, keyHash), isNull(t.apiKeys.revokedAt))),
  );
  return key?.orgId ?? null;
}

/** The id and org of the live key stored under `keyHash` (the console's sign-in); null for any other hash. */
export async function liveApiKeyOfHash(
  db: Db,
  keyHash: string,
): Promise<{ id: string; orgId: string } | null> {
  const [key] = await query(db, (orm, t) =>
    orm
      .select({ id: t.apiKeys.id, orgId: t.apiKeys.orgId })
      .from(t.apiKeys)
      .where(and(eq(t.apiKeys.keyHash, keyHash), isNull(t.apiKeys.revokedAt))),
  );
  return key ?? null;
}

export async function insertApiKey(db: Db, key: NewApiKey): Promise<ApiKeyRow> {
  const [row] = await query(db, (orm, t) => orm.insert(t.apiKeys).values(key).returning());
  return row!;
}

/** The org's live keys, oldest first. */
export async function listApiKeys(db: Db, orgId: string): Promise<ApiKeyRow[]> {
  return query(db, (orm, t) =>
    orm
      .select()
      .from(t.apiKeys)
      .where(and(eq(t.apiKeys.orgId, orgId), isNull(t.apiKeys.revokedAt)))
      .orderBy(asc(t.apiKeys.createdAt), asc(t.apiKeys.id)),
  );
}

/** Every live key of every org (the config rebuild publishes them all). */
export async function listAllLiveApiKeys(db: Db): Promise<ApiKeyRow[]> {
  return query(db, (orm, t) => orm.select().from(t.apiKeys).where(isNull(t.apiKeys.revokedAt)));
}

/**
 * A live key of the org; with `lock`, its row stays locked to the end of the transaction (on
 * SQLite the transaction holds the whole database already).
 */
export async function findLiveApiKey(
  db: Db,
  orgId: string,
  keyId: string,
  options: { lock: boolean } = { lock: false },
): Promise<ApiKeyRow | undefined> {
  const [row] = await query(db, (orm, t) => {
    const select = orm
      .select()
      .from(t.apiKeys)
      .where(liveKeyOf(t.apiKeys, orgId, keyId));
    return options.lock && !isSqlite(db) ? select.for("update") : select;
  });
  return row;
}

/** Revokes a live key of the org, now; undefined when there is none (or it was revoked already). */
export async function revokeLiveApiKey(db: Db, orgId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await query(db, (orm, t) =>
    orm
      .update(t.apiKeys)
      .set({ revokedAt: new Date() })
      .where(liveKeyOf(t.apiKeys, orgId, keyId))
      .returning(),
  );
  return row;
}
