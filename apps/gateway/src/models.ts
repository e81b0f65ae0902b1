import type { ConfigReader } from "@gateway/cache";

/** `GET /v1/models`: the active catalog ids, in provider B's model-list shape. */
export async function modelList(config: ConfigReader): Promise<string> {
  const ids = await config.catalogIndex();
  const models = await Promise.all(ids.map((id) => config.catalogModel(id)));
  const data = models
    .filter((m) => m?.active)
    .map((m) => ({
      id: m!.id,
      object: "model",
      created: m!.created,
      owned_by: "gateway",
      display_name: m!.displayName,
    }));
  return JSON.stringify({ object: "list", data });
}
