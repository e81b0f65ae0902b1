import type { RouteApp, RouteSite } from "../../openapi.ts";
import { registerCallCost } from "./call-cost.ts";
import { registerLimitsStatus } from "./limits-status.ts";
import { registerProjectReports } from "./project-reports.ts";

/** Every report route, on the admin surface (/admin/v1/orgs/:org_id). */
export function registerReports(app: RouteApp, site: RouteSite) {
  registerProjectReports(app, site);
  registerLimitsStatus(app, site);
  registerCallCost(app, site);
}
