import { providerLabels, wireFormats } from "@gateway/contracts";
import {
  type CatalogDeploymentRow,
  type CatalogModelRow,
  catalogModelWithDeployments,
  listCatalogDeployments,
  listCatalogModels,
} from "@gateway/db";
import { z } from "zod";
import { ApiError, notFound } from "../errors.ts";
import { pathParam, type RouteTable } from "../route-registry.ts";
import { catalogModelId, catalogModelInput, upsertCatalogModel } from "../services/catalog.ts";
import { catalogModelItem, catalogModelItemSchema } from "../services/serialize.ts";

const putCatalogModelRequest = catalogModelInput;

const deploymentSchema = z.object({
  id: z.string().meta({ description: "Prefix `dep_`." }),
  provider_label: z.enum(providerLabels),
  wire_format: z.enum(wireFormats),
  base_url: z.string(),
  upstream_model: z.string(),
  credential_env: z.string(),
  priority: z.int(),
});
export const operatorCatalogModel = catalogModelItemSchema.extend({ deployments: z.array(deploymentSchema) });
const operatorModelListResponse = z.object({ models: z.array(operatorCatalogModel) });

function operatorModel(
  m: CatalogModelRow,
  deployments: CatalogDeploymentRow[],
): z.infer<typeof operatorCatalogModel> {
  return {
    ...catalogModelItem(m),
    deployments: deployments.map((d) => ({
      id: d.id,
      provider_label: d.providerLabel,
      wire_format: d.wireFormat,
      base_url: d.baseUrl,
      upstream_model: d.upstreamModel,
      credential_env: d.credentialEnv,
      priority: d.priority,
    })),
  };
}

function modelIdParam(value: string): string {
  const parsed = catalogModelId.safeParse(value);
  if (!parsed.success) {
    throw new ApiError("bad_request", `model_id: ${parsed.error.issues[0]?.message ?? "invalid"}`, {
      issues: [{ field: "model_id", message: parsed.error.issues[0]?.message }],
    });
  }
  return parsed.data;
}

/** /operator/v1/models: the catalog with its deployments (operator-only detail). */
export function registerOperatorCatalog(t: RouteTable) {
  t.add(
    {
      method: "get",
      path: "/models",
      summary: "List every catalog model with its deployments",
      responses: {
        200: { description: "Active and inactive models, oldest first.", schema: operatorModelListResponse },
      },
    },
    async (c) => {
      const { db } = c.get("services");
      const [models, deployments] = await Promise.all([
        listCatalogModels(db, { activeOnly: false }),
        listCatalogDeployments(db),
      ]);
      return c.json({
        models: models.map((m) =>
          operatorModel(
            m,
            deployments.filter((d) => d.modelId === m.id),
          ),
        ),
      });
    },
  );

  t.add(
    {
      method: "get",
      path: "/models/:model_id",
      summary: "Get one catalog model with its deployments",
      responses: { 200: { description: "The model.", schema: operatorCatalogModel } },
    },
    async (c) => {
      const found = await catalogModelWithDeployments(c.get("services").db, pathParam(c, "model_id"));
      if (!found) throw notFound("Catalog model");
      return c.json(operatorModel(found.model, found.deployments));
    },
  );

  t.add(
    {
      method: "put",
      path: "/models/:model_id",
      summary: "Create or replace a catalog model and its deployments",
      description:
        "The deployment list replaces the model's previous one. Set active to false to withdraw a model " +
        "(models are never deleted: workloads and calls keep referring to their id).",
      body: putCatalogModelRequest,
      responses: {
        200: { description: "Replaced.", schema: operatorCatalogModel },
        201: { description: "Created.", schema: operatorCatalogModel },
      },
    },
    async (c, { body }) => {
      const id = modelIdParam(pathParam(c, "model_id"));
      const { created, model } = await upsertCatalogModel(c.get("services"), id, body);
      return c.json(operatorModel(model.model, model.deployments), created ? 201 : 200);
    },
  );
}
