import { asc, inArray } from "drizzle-orm";
import type { Db } from "../client.ts";
import { catalogDeployments } from "../schema/catalog.ts";
import { projectWorkloads } from "./workload-names.ts";

export interface RoutingStatusEntry {
  workload_id: string;
  display_name: string;
  environment: string | null;
  route_mode: "primary" | "gateway" | "passthrough";
  active_traffic_pct: number;
  provider_label: string | null;
  model: string | null;
  updated_at: string;
}

/** route_mode follows active_traffic_pct: 100 primary, 1 to 99 gateway, none (or 0) passthrough. */
export function routeMode(activePct: number): RoutingStatusEntry["route_mode"] {
  if (activePct >= 100) return "primary";
  if (activePct >= 1) return "gateway";
  return "passthrough";
}

/** Each workload's declared route; the provider label is that of the model's first deployment. */
export async function routingStatus(db: Db, projectId: string): Promise<RoutingStatusEntry[]> {
  const workloads = await projectWorkloads(db, projectId);
  const routed = [...new Set(workloads.flatMap((w) => (w.routeModelId ? [w.routeModelId] : [])))];
  const deployments =
    routed.length === 0
      ? []
      : await db
          .select()
          .from(catalogDeployments)
          .where(inArray(catalogDeployments.modelId, routed))
          .orderBy(asc(catalogDeployments.priority), asc(catalogDeployments.id));
  const labelOf = new Map<string, string>();
  for (const d of deployments) if (!labelOf.has(d.modelId)) labelOf.set(d.modelId, d.providerLabel);
  return workloads.map((w) => {
    const active = w.routeModelId ? Math.round(w.routeTrafficPct) : 0;
    const label = w.routeModelId ? (labelOf.get(w.routeModelId) ?? null) : null;
    return {
      workload_id: w.id,
      display_name: w.name,
      environment: null,
      route_mode: routeMode(active),
      active_traffic_pct: active,
      provider_label: label,
      // Managed routes report `gateway-managed` until catalog ids are reported there.
      model: w.routeModelId ? (label === "managed" ? "gateway-managed" : w.routeModelId) : null,
      updated_at: w.updatedAt.toISOString(),
    };
  });
}
