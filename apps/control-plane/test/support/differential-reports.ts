import type { CallEvent } from "@gateway/contracts";
import type { DifferentialConfig } from "./differential-config.ts";

/**
 * The instants the reports are asked at (the test sets the clock to each): mid-morning after the
 * last call, the first instant of March (windows ending on a month's edge), and mid-February with
 * later calls already in the store (windows ending before the newest rows).
 */
export const queryNows = ["2026-03-03T09:41:17.250Z", "2026-03-01T00:00:00.000Z", "2026-02-11T13:07:45.001Z"];

const healthWindows = ["30m", "1h", "6h", "17h", "24h"];
const usageWindows = ["30d", "7d", "45h", "90m", "1d"];
const groupBys = ["", "workload", "model", "day", "day,workload,model", "model,day"];
const limitsWindows = ["1h", "5h", "24h"];
const workloadStatusWindows = ["13h", "24h"];
const timeseriesWindows = ["hour", "day", "week", "30d"];
const timeseriesGroups = ["", "&group_by=model", "&group_by=workload"];
const callLogFilters = [
  "",
  "&status=error",
  "&status=429",
  "&status=2xx",
  "&route=fallback",
  "&route=gateway",
  "&mode=managed",
  "&model=diff-a",
  "&stream_outcome=truncated",
  "&from=2026-02-10T00:00:00Z&to=2026-02-11T13:07:45.001Z",
];

const unitMs = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** Every window length asked about, in milliseconds: the generated calls sit on their edges too. */
export const windowLengthsMs = [
  ...new Set([...healthWindows, ...usageWindows, ...limitsWindows, ...workloadStatusWindows]),
].map((w) => Number(w.slice(0, -1)) * unitMs[w.at(-1) as keyof typeof unitMs]);

/** A GET the comparison makes: the key of the org that asks, and its path. */
export interface ReportQuery {
  apiKey: string;
  path: string;
}

/** Every report of every project of every org, over each window and grouping, at the current clock. */
export function projectReports(config: DifferentialConfig): ReportQuery[] {
  return config.orgs.flatMap((org) =>
    org.projectIds.flatMap((projectId) => {
      const at = (path: string) => ({
        apiKey: org.apiKey,
        path: `/admin/v1/orgs/${org.id}/projects/${projectId}/${path}`,
      });
      return [
        at("routing-status"),
        ...healthWindows.map((w) => at(`provider-health?window=${w}`)),
        at("status"),
        at("status?window=24h"),
        at("workload-status"),
        ...workloadStatusWindows.map((w) => at(`workload-status?window=${w}`)),
        at("usage-summary"),
        ...usageWindows.flatMap((w) => groupBys.map((g) => at(`usage-summary?window=${w}&group_by=${g}`))),
        ...limitsWindows.map((w) => at(`limits-status?window=${w}`)),
        ...timeseriesWindows.flatMap((w) => timeseriesGroups.map((g) => at(`timeseries?window=${w}${g}`))),
        ...callLogFilters.map((f) => at(`calls?limit=100${f}`)),
      ];
    }),
  );
}

/**
 * The call-cost route for one call in seven, by request id; by upstream request id and response
 * id for some (ids that repeat across calls answer the newest); one asked by another org (404);
 * and an id no call has.
 */
export function callCostQueries(config: DifferentialConfig, calls: CallEvent[]): ReportQuery[] {
  const keyOf = new Map(config.orgs.map((o) => [o.id, o.apiKey]));
  const cost = (orgId: string, id: string) => ({
    apiKey: keyOf.get(orgId)!,
    path: `/admin/v1/orgs/${orgId}/calls/${encodeURIComponent(id)}/cost`,
  });
  const [first, other] = config.orgs;
  return [
    ...calls.filter((_, i) => i % 7 === 0).map((c) => cost(c.org_id, c.request_id)),
    ...calls
      .filter(
        (c, i) => (i % 41 === 3 || c.upstream_request_id?.startsWith("up_twin_")) && c.upstream_request_id,
      )
      .map((c) => cost(c.org_id, c.upstream_request_id!)),
    ...calls
      .filter((c, i) => i % 43 === 5 && c.upstream_response_id)
      .map((c) => cost(c.org_id, c.upstream_response_id!)),
    ...calls
      .filter((c, i) => i % 211 === 0 && c.org_id === first!.id)
      .map((c) => cost(other!.id, c.request_id)),
    cost(first!.id, "req_none"),
  ];
}

/** One call in seven of each project, with its cost's provenance, on the console's call route. */
export function callDetailQueries(config: DifferentialConfig, calls: CallEvent[]): ReportQuery[] {
  const keyOf = new Map(config.orgs.map((o) => [o.id, o.apiKey]));
  return calls
    .filter((_, i) => i % 7 === 3)
    .map((c) => ({
      apiKey: keyOf.get(c.org_id)!,
      path: `/admin/v1/orgs/${c.org_id}/projects/${c.project_id}/calls/${encodeURIComponent(c.request_id)}`,
    }));
}

/**
 * What differs by design between two runs: the instant a costing run priced a call (each store's
 * clock: PostgreSQL's `now()`, the process's on SQLite), and a cursor's signature (each control
 * plane's own secret). Masked, so everything else is compared byte for byte.
 */
export const maskRunClock = (body: string) =>
  body
    .replace(/"(priced_at|at)":"[^"]+"/g, '"$1":"<clock>"')
    .replace(/"cursor":"[^"]+"/g, '"cursor":"<cursor>"');

/** Ids the control plane mints: they differ per store, so each is named by its creation order. */
const mintedId = /\b(?:org|proj|usp|api_key|dep|price|cpreq)_[0-9a-z]{26}\b/g;

/**
 * Response bodies with each minted id replaced by its place in the order the ids were made
 * (`mintedIds` first, then any other id in the order the bodies show it). Nothing else changes:
 * the rest of each body is compared byte for byte.
 */
export function idNamer(mintedIds: string[]): (body: string) => string {
  const names = new Map(mintedIds.map((id, i) => [id, `<id ${i}>`]));
  return (body) =>
    body.replace(mintedId, (id) => {
      if (!names.has(id)) names.set(id, `<id ${names.size}>`);
      return names.get(id)!;
    });
}
