import { newId } from "@gateway/contracts";
import { orgs } from "@gateway/db";
import { apiKeyCreated, createApiKey, publishApiKey } from "./api-keys.ts";
import type { Services } from "./context.ts";
import { ensureDefaultProject } from "./projects.ts";
import { orgObject, projectObject } from "./serialize.ts";

/** A new org with a starter key and its default project, so its first gateway call resolves. */
export async function createOrg(services: Services, name: string) {
  const { org, key } = await services.db.transaction(async (tx) => {
    const [org] = await tx
      .insert(orgs)
      .values({ id: newId("org"), name })
      .returning();
    const key = await createApiKey(tx, org!.id, "starter");
    return { org: org!, key };
  });
  await publishApiKey(services, key.row);
  const project = await ensureDefaultProject(services, org.id);
  return {
    org: orgObject(org),
    api_key: apiKeyCreated(key.value, key.row),
    default_project: projectObject(project),
  };
}
