import type { RouteApp, RouteSite } from "../../openapi.ts";
import { registerCalls } from "./calls.ts";
import { registerTimeseries } from "./timeseries.ts";

/** The console's reads, for every dashboard: the call log, one call, and the overview's time series. */
export function registerConsoleApi(app: RouteApp, site: RouteSite) {
  registerCalls(app, site);
  registerTimeseries(app, site);
}
