import { type Db, isActiveCatalogModel, type WorkloadChanges, type WorkloadRow } from "@gateway/db";
import { ApiError } from "../errors.ts";

/** The admin surface's routing fields; `model_id` is tri-state: absent, null (clear), or an id. */
export interface RoutingInput {
  model_id?: string | null;
  route_traffic_pct?: number;
  capture_enabled?: boolean;
  capture_sample_rate?: number;
  name?: string;
}

/**
 * The interface's routing transitions:
 * - a model id must be an active catalog model (else 422, nothing changes);
 * - setting a route turns capture on unless `capture_enabled: false` is sent;
 * - a new route (from passthrough) takes 100% when `route_traffic_pct` is omitted, while
 *   switching an existing route to another model keeps its dial;
 * - clearing (null) returns to passthrough with the dial at 0 and capture as it was;
 * - a dial alone on a passthrough workload has nothing to act on (409).
 */
export async function routingChanges(
  tx: Db,
  current: WorkloadRow,
  input: RoutingInput,
): Promise<WorkloadChanges> {
  const changes: WorkloadChanges = {};
  if (input.name !== undefined) changes.name = input.name;
  if (input.capture_sample_rate !== undefined) changes.captureSampleRate = input.capture_sample_rate;
  if (input.capture_enabled !== undefined) changes.captureEnabled = input.capture_enabled;

  if (input.model_id === undefined) {
    if (input.route_traffic_pct !== undefined) {
      if (current.routeModelId === null) {
        throw new ApiError(
          "conflict",
          "The workload has no route, so route_traffic_pct has nothing to act on; send model_id with it.",
        );
      }
      changes.routeTrafficPct = input.route_traffic_pct;
    }
    return changes;
  }

  if (input.model_id === null) {
    if (input.route_traffic_pct !== undefined) {
      throw new ApiError(
        "bad_request",
        "route_traffic_pct: cannot be set while clearing the route (model_id null).",
        {
          issues: [{ field: "route_traffic_pct", message: "not allowed with model_id null" }],
        },
      );
    }
    return { ...changes, routeModelId: null, routeTrafficPct: 0 };
  }

  if (!(await isActiveCatalogModel(tx, input.model_id))) {
    throw new ApiError("unprocessable", `model_id: '${input.model_id}' is not an active catalog model.`, {
      issues: [{ field: "model_id", message: "unknown catalog model" }],
    });
  }
  return {
    ...changes,
    routeModelId: input.model_id,
    routeTrafficPct:
      input.route_traffic_pct ?? (current.routeModelId === null ? 100 : current.routeTrafficPct),
    captureEnabled: input.capture_enabled ?? true,
  };
}
