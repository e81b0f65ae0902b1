import { type Metrics, newId } from "@gateway/contracts";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { requireOperator, requireOrgKey } from "./auth.ts";
import { ApiError, errorResponse, loggableError } from "./errors.ts";
import { requestMetrics } from "./request-metrics.ts";
import { type RegisteredRoute, routeRegistry } from "./route-registry.ts";
import { registerApiKeys } from "./routes/api-keys.ts";
import { registerCaptures } from "./routes/captures.ts";
import { registerLimits } from "./routes/limits.ts";
import { registerOperatorCatalog } from "./routes/operator-catalog.ts";
import { registerOperatorOrgs } from "./routes/operator-orgs.ts";
import { registerOperatorPrices } from "./routes/operator-prices.ts";
import { registerProbes } from "./routes/probes.ts";
import { registerProjects } from "./routes/projects.ts";
import { registerReference } from "./routes/reference.ts";
import { registerReports } from "./routes/reports/index.ts";
import { registerRouting } from "./routes/routing.ts";
import { registerWorkloads } from "./routes/workloads.ts";
import type { AppEnv, Services } from "./services/context.ts";
import { refuseNulInUrl } from "./validate.ts";

/** Control-plane bodies are small JSON documents; anything bigger is refused unread. */
const maxBodyBytes = 1024 * 1024;

const surfaces = {
  operator: "/operator/v1",
  admin: "/admin/v1/orgs/:org_id",
  customer: "/customer/v1/orgs/:org_id/projects/:project_id",
} as const;

/**
 * The control plane's HTTP surfaces: operator, admin, customer, and the public reference. Every
 * route is mounted through the registry, which is also what `/openapi.json` and `/docs` show.
 */
export function createControlPlane(
  services: Services,
  metrics?: Metrics | null,
): {
  app: Hono<AppEnv>;
  routes: readonly RegisteredRoute[];
} {
  const registry = routeRegistry();
  const app = new Hono<AppEnv>();
  // every answer names its request, so a dashboard's report of a failure finds its log line
  app.use(async (c, next) => {
    const requestId = newId("controlPlaneRequest");
    c.set("requestId", requestId);
    await next();
    c.res.headers.set("x-request-id", requestId);
  });
  if (metrics) app.use(requestMetrics(metrics));
  app.use(async (c, next) => {
    c.set("services", services);
    await next();
  });
  app.use(refuseNulInUrl);
  app.use(
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new ApiError("payload_too_large", `Request bodies are limited to ${maxBodyBytes} bytes.`);
      },
    }),
  );

  registerReference(registry.table(app, "", null, "Reference"), registry.routes);
  registerProbes(registry.table(app, "", null, "Probes"));

  const operator = new Hono<AppEnv>();
  operator.use(requireOperator);
  registerOperatorOrgs(registry.table(operator, surfaces.operator, "operator", "Operator: orgs"));
  registerOperatorCatalog(registry.table(operator, surfaces.operator, "operator", "Operator: catalog"));
  registerOperatorPrices(registry.table(operator, surfaces.operator, "operator", "Operator: prices"));
  app.route(surfaces.operator, operator);

  const admin = new Hono<AppEnv>();
  admin.use(requireOrgKey);
  registerApiKeys(registry.table(admin, surfaces.admin, "orgKey", "API keys"));
  registerProjects(registry.table(admin, surfaces.admin, "orgKey", "Projects"));
  registerRouting(registry.table(admin, surfaces.admin, "orgKey", "Routing"));
  registerLimits(registry.table(admin, surfaces.admin, "orgKey", "Limits"));
  registerReports(registry.table(admin, surfaces.admin, "orgKey", "Reports"));
  app.route(surfaces.admin, admin);

  const customer = new Hono<AppEnv>();
  customer.use(requireOrgKey);
  registerWorkloads(registry.table(customer, surfaces.customer, "orgKey", "Workloads"));
  registerCaptures(registry.table(customer, surfaces.customer, "orgKey", "Captures"));
  app.route(surfaces.customer, customer);

  app.notFound((c) =>
    errorResponse(c, new ApiError("not_found", `No route for ${c.req.method} ${c.req.path}.`)),
  );
  app.onError((error, c) => {
    if (error instanceof ApiError) return errorResponse(c, error);
    services.log.error("control-plane request failed", {
      request_id: c.get("requestId"),
      path: c.req.path,
      error: loggableError(error),
    });
    return errorResponse(c, new ApiError("internal_error", "Internal error."));
  });
  return { app, routes: registry.routes };
}

/** The app; with `metrics`, it counts its requests there (`/metrics` is served beside it). */
export function createControlPlaneApp(services: Services, metrics?: Metrics | null) {
  return createControlPlane(services, metrics).app;
}
