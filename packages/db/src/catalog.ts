import { newId } from "@gateway/contracts";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db } from "./client.ts";
import { builder, inTransaction, isSqlite, query } from "./dialect.ts";
import type { catalogDeployments, catalogModels } from "./schema/catalog.ts";

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
export async function listCatalogModels(
  db: Db,
  options: { activeOnly: boolean },
): Promise<CatalogModelRow[]> {
  return query(db, (orm, t) =>
    orm
      .select()
      .from(t.catalogModels)
      .where(options.activeOnly ? eq(t.catalogModels.active, true) : undefined)
      .orderBy(asc(t.catalogModels.createdAt), asc(t.catalogModels.id)),
  );
}

/** Deployments, lowest priority first: every model's, or those of `modelIds` when given. */
export async function listCatalogDeployments(
  db: Db,
  modelIds?: readonly string[],
): Promise<CatalogDeploymentRow[]> {
  return query(db, (orm, { catalogDeployments: d }) =>
    orm
      .select()
      .from(d)
      .where(modelIds ? inArray(d.modelId, [...modelIds]) : undefined)
      .orderBy(asc(d.priority), asc(d.id)),
  );
}

export async function catalogModelWithDeployments(
  db: Db,
  id: string,
): Promise<{ model: CatalogModelRow; deployments: CatalogDeploymentRow[] } | undefined> {
  const [model] = await query(db, (orm, t) =>
    orm.select().from(t.catalogModels).where(eq(t.catalogModels.id, id)),
  );
  if (!model) return undefined;
  return { model, deployments: await listCatalogDeployments(db, [id]) };
}

export async function isActiveCatalogModel(db: Db, id: string): Promise<boolean> {
  const [model] = await query(db, (orm, t) =>
    orm
      .select({ id: t.catalogModels.id })
      .from(t.catalogModels)
      .where(and(eq(t.catalogModels.id, id), eq(t.catalogModels.active, true))),
  );
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
  return inTransaction(db, async (tx) => {
    const { orm, t } = builder(tx);
    const { catalogModels: m, catalogDeployments: d } = t;
    const current = orm.select().from(m).where(eq(m.id, id));
    const [existing] = await (isSqlite(tx) ? current : current.for("update"));
    if (existing) {
      await orm.update(m).set({ displayName: model.displayName, active: model.active }).where(eq(m.id, id));
    } else {
      await orm.insert(m).values({ id, displayName: model.displayName, active: model.active });
    }
    const previous = await orm.select().from(d).where(eq(d.modelId, id));
    await orm.delete(d).where(eq(d.modelId, id));
    const rows = model.deployments.map((dep) => {
      const kept = previous.find((p) => identity(p) === identity(dep));
      return { ...dep, modelId: id, id: kept?.id ?? newId("deployment") };
    });
    // Duplicate entries in one body would share a kept id: give every repeat a fresh one.
    const seen = new Set<string>();
    for (const row of rows) {
      if (seen.has(row.id)) row.id = newId("deployment");
      seen.add(row.id);
    }
    if (rows.length > 0) await orm.insert(d).values(rows);
    return { created: !existing };
  });
}
