import type { ProviderLabel } from "@gateway/contracts";
import { listCatalogDeployments } from "../catalog.ts";
import type { Db } from "../client.ts";
import { projectWorkloads } from "./workload-names.ts";

export interface RoutingStatusEntry {
  workload_id: string;
  display_name: string;
  environment: string | null;
  route_mode: "primary" | "gateway" | "passthrough";
  active_traffic_pct: number;
  provider_label: ProviderLabel | null;
  model: string | null;
  updated_at: string;
}

/** route_mode follows active_traffic_pct: 100 primary, 1 to 99 gateway, none (or 0) passthrough. */
/**
 * The mode follows the dial as stored, not a rounded copy of it: 99.6% is still a split and
 * 0.4% still moves traffic. The integer `active_traffic_pct` is then kept inside its mode's range.
 */
function routeMode(pct: number): { mode: RoutingStatusEntry["route_mode"]; active: number } {
  if (pct >= 100) return { mode: "primary", active: 100 };
  if (pct > 0) return { mode: "gateway", active: Math.min(99, Math.max(1, Math.round(pct))) };
  return { mode: "passthrough", active: 0 };
}

/** Each workload's declared route; the provider label is that of the model's first deployment. */
export async function routingStatus(db: Db, projectId: string): Promise<RoutingStatusEntry[]> {
  const workloads = await projectWorkloads(db, projectId);
  const routed = [...new Set(workloads.flatMap((w) => (w.routeModelId ? [w.routeModelId] : [])))];
  const deployments = routed.length === 0 ? [] : await listCatalogDeployments(db, routed);
  const labelOf = new Map<string, ProviderLabel>();
  for (const d of deployments) if (!labelOf.has(d.modelId)) labelOf.set(d.modelId, d.providerLabel);
  return workloads.map((w) => {
    const { mode, active } = routeMode(w.routeModelId ? w.routeTrafficPct : 0);
    const routed = mode === "passthrough" ? null : w.routeModelId;
    const label = routed ? (labelOf.get(routed) ?? null) : null;
    return {
      workload_id: w.id,
      display_name: w.name,
      environment: null,
      route_mode: mode,
      active_traffic_pct: active,
      provider_label: label,
      // Managed routes report `gateway-managed` until catalog ids are reported there.
      model: routed ? (label === "managed" ? "gateway-managed" : routed) : null,
      updated_at: w.updatedAt.toISOString(),
    };
  });
}
