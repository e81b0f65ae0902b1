import type { RouteTable } from "../../route-registry.ts";
import { registerCallCost } from "./call-cost.ts";
import { registerLimitsStatus } from "./limits-status.ts";
import { registerProjectReports } from "./project-reports.ts";

/** Every report route, on the admin surface (/admin/v1/orgs/:org_id). */
export function registerReports(t: RouteTable) {
  registerProjectReports(t);
  registerLimitsStatus(t);
  registerCallCost(t);
}
