import { newId, noLimits } from "@gateway/contracts";
import { type ApiKeyRow, type Db, insertApiKey, revokeLiveApiKey } from "@gateway/db";
import { notFound } from "../errors.ts";
import { hashKey, mintKeyValue, obfuscateKey } from "./api-key-secret.ts";
import type { Services } from "./context.ts";
import { apiKeyMetadata } from "./serialize.ts";

/** Mints a key for `orgId`; the plaintext is in the result and nowhere else, ever. */
export async function createApiKey(db: Db, orgId: string, name: string | null) {
  const value = mintKeyValue();
  const row = await insertApiKey(db, {
    id: newId("apiKey"),
    orgId,
    name,
    keyHash: hashKey(value),
    obfuscatedValue: obfuscateKey(value),
  });
  return { value, row };
}

/** Publishes a key just created: a new id has no limits yet. */
export async function publishNewApiKey(services: Services, row: ApiKeyRow) {
  await services.sync.apiKey(row, noLimits());
}

export function apiKeyCreated(value: string, row: ApiKeyRow) {
  return { value, metadata: apiKeyMetadata(row) };
}

/** Revokes only a live key of `orgId`; anything else is indistinguishable from "no such key". */
export async function revokeApiKey(services: Services, orgId: string, keyId: string) {
  const row = await revokeLiveApiKey(services.db, orgId, keyId);
  if (!row) throw notFound("API key");
  await services.sync.revokeApiKey(row.keyHash);
}
