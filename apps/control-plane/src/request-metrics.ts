import { durationBuckets, type Metrics } from "@gateway/runtime";
import type { MiddlewareHandler } from "hono";
import { Counter, Histogram } from "prom-client";

/**
 * `control_plane_requests_total` and `control_plane_request_duration_seconds`, by route: the
 * route's pattern (`/admin/v1/orgs/:org_id/projects`), never the path a caller sent, so the
 * labels stay a fixed list.
 */
export function requestMetrics(metrics: Metrics): MiddlewareHandler {
  const registers = [metrics.registry];
  const requests = new Counter({
    name: "control_plane_requests_total",
    help: "Control-plane requests by method, route pattern and status class.",
    labelNames: ["method", "route", "status_class"],
    registers,
  });
  const duration = new Histogram({
    name: "control_plane_request_duration_seconds",
    help: "Control-plane request durations by method and route pattern.",
    labelNames: ["method", "route"],
    buckets: durationBuckets,
    registers,
  });
  return async (c, next) => {
    const started = performance.now();
    await next();
    // a path no route matched reports as the catch-all, not as itself
    const route = c.req.routePath;
    const method = c.req.method;
    requests.inc({ method, route, status_class: `${Math.floor(c.res.status / 100)}xx` });
    duration.observe({ method, route }, (performance.now() - started) / 1000);
  };
}
