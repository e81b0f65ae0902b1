import type { ProviderLabel } from "@gateway/contracts";
import type { Db } from "../client.ts";
import { ratio, spaceTimestamp } from "./format.ts";
import { problemCalls } from "./problem-calls.ts";
import { type TimeWindow, windowTotals } from "./window.ts";
import { projectWorkloads } from "./workload-names.ts";

export interface WorkloadStatus {
  workload_id: string;
  display_name: string;
  status: "healthy" | "degraded" | "idle";
  /** Dominant observed provider label; null when idle (nothing observed). */
  mode: ProviderLabel | null;
  declared: { routed: "pin" | "steer" | "none"; split_pct: number };
  requests: number;
  route_shares: { primary: number; gateway: number; fallback: number };
  error_rate: number;
  last_error_at: string | null;
  example_request_ids: string[];
  served_models: { model: string | null; provider_label: ProviderLabel; requests: number; share: number }[];
  rerouted_pct: number;
}

/** A 5xx rate at or above this over the window makes a workload `degraded`. */
const degradedAt = 0.05;

/** Every workload of the project, observed over the window, next to what it declares. */
export async function workloadStatuses(db: Db, window: TimeWindow): Promise<WorkloadStatus[]> {
  const [rows, workloads] = await Promise.all([
    windowTotals(db, window, ["workload_id", "provider_label", "model", "route"]),
    projectWorkloads(db, window.projectId),
  ]);
  const errors = await problemCalls(db, window, ["workload_id"], "error", rows);
  const errorsOf = new Map(errors.map((e) => [e.keys.workload_id, e]));
  return workloads.map((w): WorkloadStatus => {
    const mine = rows.filter((r) => r.workload_id === w.id);
    const sum = (pick: (r: (typeof mine)[number]) => number) => mine.reduce((n, r) => n + pick(r), 0);
    const requests = sum((r) => r.requests);
    const byRoute = (route: string) => sum((r) => (r.route === route ? r.requests : 0));
    const byLabel = new Map<ProviderLabel, number>();
    const byModel = new Map<
      string,
      { model: string | null; provider_label: ProviderLabel; requests: number }
    >();
    for (const r of mine) {
      byLabel.set(r.provider_label, (byLabel.get(r.provider_label) ?? 0) + r.requests);
      const id = JSON.stringify([r.model, r.provider_label]);
      const served = byModel.get(id) ?? {
        model: r.model === "" ? null : r.model,
        provider_label: r.provider_label,
        requests: 0,
      };
      served.requests += r.requests;
      byModel.set(id, served);
    }
    // Dominant label: most requests; ties go to the alphabetically first label, so it is stable.
    const mode =
      [...byLabel.entries()].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))[0]?.[0] ?? null;
    const errorsSeen = errorsOf.get(w.id);
    const shares = {
      primary: ratio(byRoute("primary"), requests),
      gateway: ratio(byRoute("gateway"), requests),
      fallback: ratio(byRoute("fallback"), requests),
    };
    return {
      workload_id: w.id,
      display_name: w.name,
      status:
        requests === 0 ? "idle" : sum((r) => r.errors5xx) / requests >= degradedAt ? "degraded" : "healthy",
      mode,
      declared: w.routeModelId
        ? { routed: "steer", split_pct: w.routeTrafficPct }
        : { routed: "none", split_pct: 0 },
      requests,
      route_shares: shares,
      error_rate: ratio(
        sum((r) => r.errors),
        requests,
      ),
      last_error_at: errorsSeen ? spaceTimestamp(errorsSeen.lastAt) : null,
      example_request_ids: errorsSeen?.requestIds ?? [],
      served_models: [...byModel.values()]
        .sort((x, y) => y.requests - x.requests || (x.model ?? "").localeCompare(y.model ?? ""))
        .map((m) => ({ ...m, share: ratio(m.requests, requests) })),
      rerouted_pct: shares.gateway,
    };
  });
}
