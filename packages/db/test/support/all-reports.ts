import {
  budgetSpendTotals,
  callCost,
  captureIndexPage,
  countPricingPending,
  type DbHandle,
  limitsStatus,
  providerHealth,
  routingStatus,
  usageSummaryGroups,
  workloadStatuses,
} from "../../src/index.ts";
import { reportNow, reportWindow } from "./report-calls.ts";

/**
 * Every report over one generated workload, as JSON. Both stores must give these same bytes: the
 * file holds PostgreSQL's and SQLite's answers alike (docs/decisions.md, "Same answers").
 */
export async function allReports({ db }: DbHandle) {
  const usage = async (groupBy: ("workload" | "model" | "day")[]) =>
    usageSummaryGroups(db, reportWindow, groupBy);
  return {
    usage_total: await usage([]),
    usage_by_day_workload_model: await usage(["day", "workload", "model"]),
    provider_health: await providerHealth(db, reportWindow),
    workload_status: await workloadStatuses(db, reportWindow),
    routing_status: (await routingStatus(db, "proj_1")).map(({ updated_at: _, ...entry }) => entry),
    limits_status: await limitsStatus(
      db,
      { ...reportWindow, orgId: "org_1", projectSlug: "shop" },
      reportNow,
    ),
    budget_totals: await budgetSpendTotals(db, reportNow),
    call_costs: await Promise.all(
      ["req_0001", "req_0006", "req_0011", "up_7", "msg_30", "req_none"].map((id) =>
        callCost(db, "org_1", id),
      ),
    ),
    captures: (await captureIndexPage(db, { projectId: "proj_1" }, null, 3)).map((r) => ({
      ...r,
      uploadedAt: r.uploadedAt.toISOString(),
    })),
    pricing_pending: await countPricingPending(db),
  };
}
