import type { ProviderLabel } from "@gateway/contracts";
import type { Db } from "../client.ts";
import { ratio } from "./format.ts";
import { problemCalls } from "./problem-calls.ts";
import { type TimeWindow, windowTotals } from "./window.ts";
import { projectWorkloads } from "./workload-names.ts";

interface ProviderHealthEntry {
  provider: ProviderLabel;
  workload: string;
  model: string | null;
  request_count: number;
  error_5xx_count: number;
  error_5xx_rate: number;
  timeout_count: number;
  fallback_count: number;
  last_failing_at: string | null;
  example_request_ids: string[];
}

export interface ProviderHealth {
  total_requests: number;
  /** Failing requests: 5xx, broken streams and fallbacks (see `isFailing`). */
  total_errors: number;
  providers: ProviderHealthEntry[];
}

const dims = ["provider_label", "workload_id", "model"] as const;

/** Per provider, workload and served model over the window. */
export async function providerHealth(db: Db, window: TimeWindow): Promise<ProviderHealth> {
  const [byRoute, names] = await Promise.all([
    windowTotals(db, window, [...dims, "route"]),
    projectWorkloads(db, window.projectId),
  ]);
  const problems = await problemCalls(db, window, dims, "failing", byRoute);
  const nameOf = new Map(names.map((w) => [w.id, w.name]));
  const key = (k: Record<(typeof dims)[number], string>) => JSON.stringify(dims.map((d) => k[d]));
  const problemOf = new Map(problems.map((p) => [key(p.keys), p]));
  const entries = new Map<string, ProviderHealthEntry & { failing: number }>();
  for (const row of byRoute) {
    const id = key(row);
    let entry = entries.get(id);
    if (!entry) {
      const problem = problemOf.get(id);
      entry = {
        provider: row.provider_label,
        workload: nameOf.get(row.workload_id) ?? row.workload_id,
        model: row.model === "" ? null : row.model,
        request_count: 0,
        error_5xx_count: 0,
        error_5xx_rate: 0,
        timeout_count: 0,
        fallback_count: 0,
        last_failing_at: problem ? problem.lastAt.toISOString() : null,
        example_request_ids: problem ? problem.requestIds : [],
        failing: 0,
      };
      entries.set(id, entry);
    }
    entry.request_count += row.requests;
    entry.error_5xx_count += row.errors5xx;
    entry.timeout_count += row.timeouts;
    entry.failing += row.failing;
    if (row.route === "fallback") entry.fallback_count += row.requests;
  }
  let totalRequests = 0;
  let totalErrors = 0;
  const providers = [...entries.values()].map(({ failing, ...entry }) => {
    totalRequests += entry.request_count;
    totalErrors += failing;
    return { ...entry, error_5xx_rate: ratio(entry.error_5xx_count, entry.request_count) };
  });
  providers.sort(
    (x, y) =>
      x.provider.localeCompare(y.provider) ||
      x.workload.localeCompare(y.workload) ||
      (x.model ?? "").localeCompare(y.model ?? ""),
  );
  return { total_requests: totalRequests, total_errors: totalErrors, providers };
}
