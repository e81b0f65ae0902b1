import { listCatalogModels } from "@gateway/db";
import { z } from "zod";
import { pathParam, type RouteTable } from "../route-registry.ts";
import { type RoutingInput, routingChanges } from "../services/routing.ts";
import {
  catalogModelItem,
  catalogModelItemSchema,
  workloadObject,
  workloadSchema,
} from "../services/serialize.ts";
import { updateWorkload } from "../services/workloads.ts";
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
const modelListResponse = z.array(catalogModelItemSchema);

const routingErrors = {
  409: { description: "A dial without a route, or the new name is taken." },
  422: { description: "model_id is not an active catalog model; nothing changed." },
};

/** /admin/v1/orgs/:org_id: the catalog as customers see it, and the routing dial of a workload. */
export function registerRouting(t: RouteTable) {
  t.add(
    {
      method: "get",
      path: "/models",
      summary: "List the catalog models that can be routed to",
      description: "The active catalog models: the same ids as the gateway's GET /v1/models.",
      responses: { 200: { description: "Catalog model items (admin shape).", schema: modelListResponse } },
    },
    async (c) =>
      c.json((await listCatalogModels(c.get("services").db, { activeOnly: true })).map(catalogModelItem)),
  );

  const update = (c: Parameters<Parameters<RouteTable["add"]>[1]>[0], input: RoutingInput) =>
    updateWorkload(
      c.get("services"),
      c.get("orgId"),
      pathParam(c, "project_id"),
      pathParam(c, "workload_id"),
      (current, tx) => routingChanges(tx, current, input),
    );

  t.add(
    {
      method: "put",
      path: "/projects/:project_id/workloads/:workload_id/route",
      summary: "Set or clear a workload's route",
      body: putRouteRequest,
      responses: { 200: { description: "The workload.", schema: workloadSchema }, ...routingErrors },
    },
    async (c, { body }) => c.json(workloadObject(await update(c, body))),
  );

  t.add(
    {
      method: "patch",
      path: "/projects/:project_id/workloads/:workload_id",
      summary: "Change a workload's route, dial, capture or name",
      body: patchAdminWorkloadRequest,
      responses: { 200: { description: "The workload.", schema: workloadSchema }, ...routingErrors },
    },
    async (c, { body }) => c.json(workloadObject(await update(c, body))),
  );
}
