import { newId } from "@gateway/contracts";
import { databaseAnswers } from "@gateway/db";
import type { Metrics, ReadinessCheck } from "@gateway/runtime";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { requireOperator, requireOrgKey } from "./auth.ts";
import { registerConsole } from "./console/index.ts";
import { ApiError, asApiError, errorResponse, loggableError } from "./errors.ts";
import type { RouteApp, RouteSite } from "./openapi.ts";
import { requestMetrics } from "./request-metrics.ts";
import { registerApiKeys } from "./routes/api-keys.ts";
import { registerCaptures } from "./routes/captures.ts";
import { registerConsoleApi } from "./routes/console/index.ts";
import { registerLimits } from "./routes/limits.ts";
import { registerOperatorCatalog } from "./routes/operator-catalog.ts";
import { registerOperatorOrgs } from "./routes/operator-orgs.ts";
import { registerOperatorPrices } from "./routes/operator-prices.ts";
import { registerOperatorRetention } from "./routes/operator-retention.ts";
import { registerProbes } from "./routes/probes.ts";
import { registerProjects } from "./routes/projects.ts";
import { registerReference } from "./routes/reference.ts";
import { registerReports } from "./routes/reports/index.ts";
import { registerRouting } from "./routes/routing.ts";
import { registerWorkloads } from "./routes/workloads.ts";
import type { AppEnv, Services } from "./services/context.ts";
import { refuseNulInUrl, validationHook } from "./validate.ts";

/** Control-plane bodies are small JSON documents; anything bigger is refused unread. */
const maxBodyBytes = 1024 * 1024;

const surfaces = {
  public: { prefix: "", security: null },
  operator: { prefix: "/operator/v1", security: "operator" },
  admin: { prefix: "/admin/v1/orgs/:org_id", security: "orgKey" },
  customer: { prefix: "/customer/v1/orgs/:org_id/projects/:project_id", security: "orgKey" },
} as const satisfies Record<string, Omit<RouteSite, "tag">>;

const at = (surface: keyof typeof surfaces, tag: string): RouteSite => ({ ...surfaces[surface], tag });

/** A surface's sub-app: its credential checked first, then its routes' validation. */
function surfaceApp(auth: MiddlewareHandler<AppEnv>): RouteApp {
  const sub = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  sub.use(auth);
  return sub;
}

export interface ControlPlaneAppOptions {
  /** Where its request metrics go; none by default. */
  metrics?: Metrics | null;
  /** What `/readyz` answers; by default whether PostgreSQL answers within 1 s. */
  readiness?: ReadinessCheck;
}

/** Ready while PostgreSQL answers within 1 s. */
export function databaseReadiness(services: Pick<Services, "db">): ReadinessCheck {
  return async () =>
    (await databaseAnswers(services.db, 1_000))
      ? { ready: true }
      : { ready: false, reason: "database_unreachable" };
}

/**
 * The control plane's HTTP surfaces: operator, admin, customer, and the public reference. Every
 * route is an `app.openapi` route, so what `/openapi.json` and `/docs` show is generated from the
 * same definitions that validate its input and type its answers.
 */
export function createControlPlaneApp(
  services: Services,
  { metrics = null, readiness = databaseReadiness(services) }: ControlPlaneAppOptions = {},
): RouteApp {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
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

  registerReference(app, at("public", "Reference"));
  registerProbes(app, at("public", "Probes"), readiness);

  const operator = surfaceApp(requireOperator);
  registerOperatorOrgs(operator, at("operator", "Operator: orgs"));
  registerOperatorRetention(operator, at("operator", "Operator: orgs"));
  registerOperatorCatalog(operator, at("operator", "Operator: catalog"));
  registerOperatorPrices(operator, at("operator", "Operator: prices"));
  app.route(surfaces.operator.prefix, operator);

  const admin = surfaceApp(requireOrgKey);
  registerApiKeys(admin, at("admin", "API keys"));
  registerProjects(admin, at("admin", "Projects"));
  registerRouting(admin, at("admin", "Routing"));
  registerLimits(admin, at("admin", "Limits"));
  registerReports(admin, at("admin", "Reports"));
  registerConsoleApi(admin, at("admin", "Calls"));
  app.route(surfaces.admin.prefix, admin);

  const customer = surfaceApp(requireOrgKey);
  registerWorkloads(customer, at("customer", "Workloads"));
  registerCaptures(customer, at("customer", "Captures"));
  app.route(surfaces.customer.prefix, customer);

  registerConsole(app);

  app.notFound((c) =>
    errorResponse(c, new ApiError("not_found", `No route for ${c.req.method} ${c.req.path}.`)),
  );
  app.onError((error, c) => {
    const known = asApiError(error);
    if (known) return errorResponse(c, known);
    services.log.error("control-plane request failed", {
      request_id: c.get("requestId"),
      path: c.req.path,
      error: loggableError(error),
    });
    return errorResponse(c, new ApiError("internal_error", "Internal error."));
  });
  return app;
}
