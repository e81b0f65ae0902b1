import { listCatalogModels } from "@gateway/db";
import { z } from "zod";
import { defineRoute, json, jsonBody, type RouteApp, type RouteSite } from "../openapi.ts";
import type { Services } from "../services/context.ts";
import { type RoutingInput, routingChanges } from "../services/routing.ts";
import {
  catalogModelItem,
  catalogModelItemSchema,
  workloadObject,
  workloadSchema,
} from "../services/serialize.ts";
import { updateWorkload } from "../services/workloads.ts";
import { orgPath, workloadPath } from "./path-params.ts";
import { workloadName } from "./workloads.ts";

const modelId = z
  .string()
  .min(1)
  .max(128)
  .nullable()
  .meta({ description: "A public catalog id to route to, or null to clear to passthrough." });
const trafficPct = z.number().min(0).max(100).meta({
  description: "Share of matching traffic sent to the route, 0 to 100; 100 when omitted on a new route.",
});
const captureEnabled = z
  .boolean()
  .meta({ description: "Setting a route turns capture on unless this is false; clearing leaves it as is." });

const putRouteRequest = z.strictObject({
  model_id: modelId,
  route_traffic_pct: trafficPct.optional(),
  capture_enabled: captureEnabled.optional(),
});
const patchAdminWorkloadRequest = z.strictObject({
  model_id: modelId
    .optional()
    .meta({ description: "Tri-state: omitted leaves the route, null clears it, an id routes." }),
  route_traffic_pct: trafficPct.optional(),
  capture_enabled: captureEnabled.optional(),
  capture_sample_rate: z.number().min(0).max(1).optional().meta({ description: "Fraction; 1 is 100%." }),
  name: workloadName.optional(),
});
export const modelListResponse = z.array(catalogModelItemSchema);

const routingErrors = {
  409: { description: "A dial without a route, or the new name is taken." },
  422: { description: "model_id is not an active catalog model; nothing changed." },
};

/** A workload's routing change, checked against the catalog in the update's transaction. */
const update = (
  services: Services,
  orgId: string,
  { project_id, workload_id }: z.output<typeof workloadPath>,
  input: RoutingInput,
) =>
  updateWorkload(services, orgId, project_id, workload_id, (current, tx) =>
    routingChanges(tx, current, input),
  );

/** /admin/v1/orgs/:org_id: the catalog as customers see it, and the routing dial of a workload. */
export function registerRouting(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/models",
      summary: "List the catalog models that can be routed to",
      description: "The active catalog models: the same ids as the gateway's GET /v1/models.",
      request: { params: orgPath },
      responses: { 200: json("Catalog model items (admin shape).", modelListResponse) },
    }),
    async (c) => {
      const models = await listCatalogModels(c.get("services").db, { activeOnly: true });
      return c.json(models.map(catalogModelItem), 200);
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "put",
      path: "/projects/{project_id}/workloads/{workload_id}/route",
      summary: "Set or clear a workload's route",
      request: { params: workloadPath, body: jsonBody(putRouteRequest) },
      responses: { 200: json("The workload.", workloadSchema), ...routingErrors },
    }),
    async (c) => {
      const row = await update(c.get("services"), c.get("orgId"), c.req.valid("param"), c.req.valid("json"));
      return c.json(workloadObject(row), 200);
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "patch",
      path: "/projects/{project_id}/workloads/{workload_id}",
      summary: "Change a workload's route, dial, capture or name",
      request: { params: workloadPath, body: jsonBody(patchAdminWorkloadRequest) },
      responses: { 200: json("The workload.", workloadSchema), ...routingErrors },
    }),
    async (c) => {
      const row = await update(c.get("services"), c.get("orgId"), c.req.valid("param"), c.req.valid("json"));
      return c.json(workloadObject(row), 200);
    },
  );
}
