import { newId } from "@gateway/contracts";
import { anyOrgExists, insertOrg, inTransaction } from "@gateway/db";
import { apiKeyCreated, createApiKey, publishNewApiKey } from "./api-keys.ts";
import type { Services } from "./context.ts";
import { ensureDefaultProject } from "./projects.ts";
import { orgObject, projectObject } from "./serialize.ts";

/** A new org with a starter key and its default project, so its first gateway call resolves. */
export async function createOrg(services: Services, name: string) {
  const { org, key } = await inTransaction(services.db, async (tx) => {
    const org = await insertOrg(tx, { id: newId("org"), name });
    const key = await createApiKey(tx, org.id, "starter");
    return { org, key };
  });
  await publishNewApiKey(services, key.row);
  const project = await ensureDefaultProject(services, org.id);
  return {
    org: orgObject(org),
    api_key: apiKeyCreated(key.value, key.row),
    default_project: projectObject(project),
  };
}

/**
 * On an empty store: the first org, whose starter key is returned for the caller to show once.
 * Null when any org exists. Callers that may start side by side run it under `exclusive`.
 */
export async function ensureFirstOrg(services: Services): Promise<{ orgId: string; apiKey: string } | null> {
  if (await anyOrgExists(services.db)) return null;
  const created = await createOrg(services, "default");
  return { orgId: created.org.id, apiKey: created.api_key.value };
}

/** The first-start message; printed once and never stored (only the key's hash is kept). */
export function firstStartBanner(first: { orgId: string; apiKey: string }): string {
  return [
    "",
    "First start: created organisation and its starter API key.",
    `  org id:  ${first.orgId}`,
    `  api key: ${first.apiKey}`,
    "Keep the key now; it cannot be shown again.",
    "",
    "",
  ].join("\n");
}
