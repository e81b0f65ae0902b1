import { type LimitsUpdate, limitsUpdateSchema } from "@gateway/contracts";
import type { Context } from "hono";
import type { z } from "zod";
import { defineRoute, json, jsonBody, type RouteApp, type RouteSite } from "../openapi.ts";
import type { AppEnv } from "../services/context.ts";
import {
  apiKeyHolder,
  type FindLimitsHolder,
  getLimits,
  projectHolder,
  putLimits,
  workloadHolder,
} from "../services/limits.ts";
import { scopeLimitsSchema } from "../services/serialize.ts";
import { keyPath, projectPath, workloadPath } from "./path-params.ts";

const putDescription = [
  "Each field given is set, `null` clears it, and a field left out keeps its value (`{}` changes nothing).",
  "Counts are whole numbers from 1 to 1,000,000,000.",
  '`budget` is set or cleared as a whole: `usd` a decimal string of US dollars above zero with at most 6 decimals ("250.00"),',
  "`period` a calendar `day` or `month` in UTC, `applies_to` `managed` (calls served with the operator's credentials) or `all` (every priced call).",
  "The scope's gateway config entries are republished with the new limits.",
].join(" ");

/** A scope limits are set on: where it lives under the admin surface, and its path parameters. */
interface Scope<P extends z.ZodObject> {
  path: string;
  what: string;
  params: P;
}

const getRoute = <P extends z.ZodObject>(site: RouteSite, scope: Scope<P>) =>
  defineRoute(site, {
    method: "get",
    path: scope.path,
    summary: `Get the limits of ${scope.what}`,
    description:
      "A scope without limits answers every limit null. A revoked key or a deleted project is 404.",
    request: { params: scope.params },
    responses: { 200: json("The scope's limits.", scopeLimitsSchema) },
  });

const putRoute = <P extends z.ZodObject>(site: RouteSite, scope: Scope<P>) =>
  defineRoute(site, {
    method: "put",
    path: scope.path,
    summary: `Set or clear the limits of ${scope.what}`,
    description: putDescription,
    request: { params: scope.params, body: jsonBody(limitsUpdateSchema) },
    responses: { 200: json("The limits as they now are.", scopeLimitsSchema) },
  });

const read = async (c: Context<AppEnv>, holder: FindLimitsHolder) =>
  c.json(await getLimits(c.get("services").db, holder), 200);

const write = async (c: Context<AppEnv>, holder: FindLimitsHolder, update: LimitsUpdate) =>
  c.json(await putLimits(c.get("services"), holder, update), 200);

const keyScope = { path: "/api_keys/{key_id}/limits", what: "an API key", params: keyPath };
const projectScope = { path: "/projects/{project_id}/limits", what: "a project", params: projectPath };
const workloadScope = {
  path: "/projects/{project_id}/workloads/{workload_id}/limits",
  what: "a workload",
  params: workloadPath,
};

/** /admin/v1/orgs/:org_id: the spend and traffic limits of a key, a project and a workload. */
export function registerLimits(app: RouteApp, site: RouteSite) {
  const key = (c: Context<AppEnv>, { key_id }: z.output<typeof keyPath>) =>
    apiKeyHolder(c.get("services"), c.get("orgId"), key_id);
  app.openapi(getRoute(site, keyScope), (c) => read(c, key(c, c.req.valid("param"))));
  app.openapi(putRoute(site, keyScope), (c) => write(c, key(c, c.req.valid("param")), c.req.valid("json")));

  const project = (c: Context<AppEnv>, { project_id }: z.output<typeof projectPath>) =>
    projectHolder(c.get("services"), c.get("orgId"), project_id);
  app.openapi(getRoute(site, projectScope), (c) => read(c, project(c, c.req.valid("param"))));
  app.openapi(putRoute(site, projectScope), (c) =>
    write(c, project(c, c.req.valid("param")), c.req.valid("json")),
  );

  const workload = (c: Context<AppEnv>, { project_id, workload_id }: z.output<typeof workloadPath>) =>
    workloadHolder(c.get("services"), c.get("orgId"), project_id, workload_id);
  app.openapi(getRoute(site, workloadScope), (c) => read(c, workload(c, c.req.valid("param"))));
  app.openapi(putRoute(site, workloadScope), (c) =>
    write(c, workload(c, c.req.valid("param")), c.req.valid("json")),
  );
}
