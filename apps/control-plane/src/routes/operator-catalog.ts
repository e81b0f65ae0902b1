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
import { defineRoute, json, jsonBody, type RouteApp, type RouteSite } from "../openapi.ts";
import { catalogModelId, catalogModelInput, upsertCatalogModel } from "../services/catalog.ts";
import { catalogModelItem, catalogModelItemSchema } from "../services/serialize.ts";

const putCatalogModelRequest = catalogModelInput;

const deploymentSchema = z.strictObject({
  id: z.string().meta({ description: "Prefix `dep_`." }),
  provider_label: z.enum(providerLabels),
  wire_format: z.enum(wireFormats),
  base_url: z.string(),
  upstream_model: z.string(),
  credential_env: z.string(),
  priority: z.int(),
});
export const operatorCatalogModel = catalogModelItemSchema.extend({ deployments: z.array(deploymentSchema) });
export const operatorModelListResponse = z.strictObject({ models: z.array(operatorCatalogModel) });

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

const modelPath = z.object({ model_id: z.string() });

/** /operator/v1/models: the catalog with its deployments (operator-only detail). */
export function registerOperatorCatalog(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/models",
      summary: "List every catalog model with its deployments",
      responses: { 200: json("Active and inactive models, oldest first.", operatorModelListResponse) },
    }),
    async (c) => {
      const { db } = c.get("services");
      const [models, deployments] = await Promise.all([
        listCatalogModels(db, { activeOnly: false }),
        listCatalogDeployments(db),
      ]);
      return c.json(
        {
          models: models.map((m) =>
            operatorModel(
              m,
              deployments.filter((d) => d.modelId === m.id),
            ),
          ),
        },
        200,
      );
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/models/{model_id}",
      summary: "Get one catalog model with its deployments",
      request: { params: modelPath },
      responses: { 200: json("The model.", operatorCatalogModel) },
    }),
    async (c) => {
      const found = await catalogModelWithDeployments(c.get("services").db, c.req.valid("param").model_id);
      if (!found) throw notFound("Catalog model");
      return c.json(operatorModel(found.model, found.deployments), 200);
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "put",
      path: "/models/{model_id}",
      summary: "Create or replace a catalog model and its deployments",
      description:
        "The deployment list replaces the model's previous one. Set active to false to withdraw a model " +
        "(models are never deleted: workloads and calls keep referring to their id).",
      request: { params: modelPath, body: jsonBody(putCatalogModelRequest) },
      responses: {
        200: json("Replaced.", operatorCatalogModel),
        201: json("Created.", operatorCatalogModel),
      },
    }),
    async (c) => {
      const id = modelIdParam(c.req.valid("param").model_id);
      const { created, model } = await upsertCatalogModel(c.get("services"), id, c.req.valid("json"));
      const answer = operatorModel(model.model, model.deployments);
      return created ? c.json(answer, 201) : c.json(answer, 200);
    },
  );
}
