import { newId } from "@gateway/contracts";
import { and, asc, eq } from "drizzle-orm";
import type { Db } from "./client.ts";
import { catalogDeployments, catalogModels } from "./schema/catalog.ts";

export type CatalogModelRow = typeof catalogModels.$inferSelect;
export type CatalogDeploymentRow = typeof catalogDeployments.$inferSelect;
type DeploymentFields = Omit<typeof catalogDeployments.$inferInsert, "id" | "modelId" | "createdAt">;

/** A catalog model as the operator states it: the whole deployment set, replacing any other. */
export interface CatalogModelState {
  displayName: string;
  active: boolean;
  deployments: Required<DeploymentFields>[];
}

/** Catalog models, oldest first. */
export function listCatalogModels(db: Db, options: { activeOnly: boolean }): Promise<CatalogModelRow[]> {
  return db
    .select()
    .from(catalogModels)
    .where(options.activeOnly ? eq(catalogModels.active, true) : undefined)
    .orderBy(asc(catalogModels.createdAt), asc(catalogModels.id));
}

/** Every model's deployments, lowest priority first. */
export function listCatalogDeployments(db: Db): Promise<CatalogDeploymentRow[]> {
  return db
    .select()
    .from(catalogDeployments)
    .orderBy(asc(catalogDeployments.priority), asc(catalogDeployments.id));
}

export async function catalogModelWithDeployments(
  db: Db,
  id: string,
): Promise<{ model: CatalogModelRow; deployments: CatalogDeploymentRow[] } | undefined> {
  const [model] = await db.select().from(catalogModels).where(eq(catalogModels.id, id));
  if (!model) return undefined;
  const deployments = await db
    .select()
    .from(catalogDeployments)
    .where(eq(catalogDeployments.modelId, id))
    .orderBy(asc(catalogDeployments.priority), asc(catalogDeployments.id));
  return { model, deployments };
}

export async function isActiveCatalogModel(db: Db, id: string): Promise<boolean> {
  const [model] = await db
    .select({ id: catalogModels.id })
    .from(catalogModels)
    .where(and(eq(catalogModels.id, id), eq(catalogModels.active, true)));
  return model !== undefined;
}

/** What makes two deployments the same one: provider, format, URL and upstream model. */
const identity = (d: Pick<DeploymentFields, "providerLabel" | "wireFormat" | "baseUrl" | "upstreamModel">) =>
  [d.providerLabel, d.wireFormat, d.baseUrl, d.upstreamModel].join("\n");

/**
 * Creates or replaces a catalog model and its deployment set, in one transaction under the
 * model's row lock. A deployment that matches an existing one keeps its id, so stating the same
 * model again changes nothing. `created`: the model did not exist before.
 */
export async function replaceCatalogModel(
  db: Db,
  id: string,
  model: CatalogModelState,
): Promise<{ created: boolean }> {
  return db.transaction(async (tx) => {
    const [existing] = await tx.select().from(catalogModels).where(eq(catalogModels.id, id)).for("update");
    if (existing) {
      await tx
        .update(catalogModels)
        .set({ displayName: model.displayName, active: model.active })
        .where(eq(catalogModels.id, id));
    } else {
      await tx.insert(catalogModels).values({ id, displayName: model.displayName, active: model.active });
    }
    const previous = await tx.select().from(catalogDeployments).where(eq(catalogDeployments.modelId, id));
    await tx.delete(catalogDeployments).where(eq(catalogDeployments.modelId, id));
    const rows = model.deployments.map((d) => {
      const kept = previous.find((p) => identity(p) === identity(d));
      return { ...d, modelId: id, id: kept?.id ?? newId("deployment") };
    });
    // Duplicate entries in one body would share a kept id: give every repeat a fresh one.
    const seen = new Set<string>();
    for (const row of rows) {
      if (seen.has(row.id)) row.id = newId("deployment");
      seen.add(row.id);
    }
    if (rows.length > 0) await tx.insert(catalogDeployments).values(rows);
    return { created: !existing };
  });
}
