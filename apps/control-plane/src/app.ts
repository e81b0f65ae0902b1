import { Hono } from "hono";
import { requireOperator, requireOrgKey } from "./auth.ts";
import { ApiError, errorResponse } from "./errors.ts";
import { registerApiKeys } from "./routes/api-keys.ts";
import { registerCaptures } from "./routes/captures.ts";
import { registerOperatorOrgs } from "./routes/operator-orgs.ts";
import { registerProjects } from "./routes/projects.ts";
import { registerWorkloads } from "./routes/workloads.ts";
import type { AppEnv, Services } from "./services/context.ts";

/** The control plane's HTTP surfaces: operator, admin and customer. */
export function createControlPlaneApp(services: Services) {
  const app = new Hono<AppEnv>();
  app.use(async (c, next) => {
    c.set("services", services);
    await next();
  });

  const operator = new Hono<AppEnv>();
  operator.use(requireOperator);
  registerOperatorOrgs(operator);
  app.route("/operator/v1", operator);

  const admin = new Hono<AppEnv>();
  admin.use(requireOrgKey);
  registerApiKeys(admin);
  registerProjects(admin);
  app.route("/admin/v1/orgs/:org_id", admin);

  const customer = new Hono<AppEnv>();
  customer.use(requireOrgKey);
  registerWorkloads(customer);
  registerCaptures(customer);
  app.route("/customer/v1/orgs/:org_id/projects/:project_id", customer);

  app.notFound((c) =>
    errorResponse(c, new ApiError("not_found", `No route for ${c.req.method} ${c.req.path}.`)),
  );
  app.onError((error, c) => {
    if (error instanceof ApiError) return errorResponse(c, error);
    services.log.error("control-plane request failed", { path: c.req.path, error: String(error) });
    return errorResponse(c, new ApiError("internal_error", "Internal error."));
  });
  return app;
}
