import {
  providerHealth,
  routingStatus,
  type UsageGroupKey,
  usageGroupKeys,
  usageSummaryGroups,
  workloadStatuses,
} from "@gateway/db";
import type { Context } from "hono";
import { z } from "zod";
import { defineRoute, json, type RouteApp, type RouteSite } from "../../openapi.ts";
import type { AppEnv } from "../../services/context.ts";
import { windowBounds, windowParam } from "../../services/report-window.ts";
import { pathProject, projectPath } from "../path-params.ts";
import { compactLines } from "./compact-lines.ts";
import {
  compactStatusRecord,
  providerHealthRecord,
  routingStatusRecord,
  usageSummaryRecord,
  workloadStatusRecord,
} from "./schemas.ts";

const healthQuery = z.strictObject({ window: windowParam("30m", "24h") });
const workloadStatusQuery = z.strictObject({ window: windowParam("24h", "24h") });
const usageSummaryQuery = z.strictObject({
  window: windowParam("7d", "30d"),
  group_by: z
    .string()
    .default("workload")
    .transform((value, ctx): UsageGroupKey[] => {
      const keys = value === "" ? [] : value.split(",").map((k) => k.trim());
      const unknown = keys.filter((k) => !(usageGroupKeys as readonly string[]).includes(k));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: "custom",
          message: `group_by takes a comma-separated subset of ${usageGroupKeys.join(", ")}; not ${unknown.join(", ")}.`,
        });
        return z.NEVER;
      }
      // Fixed order, duplicates dropped: `day,workload` groups exactly like `workload,day`.
      return usageGroupKeys.filter((k) => keys.includes(k));
    }),
});

/** Read-only reports under /admin/v1/orgs/:org_id/projects/:project_id. */
export function registerProjectReports(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/projects/{project_id}/routing-status",
      summary: "Routing status",
      description: "Each workload's declared route; route_mode follows active_traffic_pct.",
      request: { params: projectPath },
      responses: { 200: json("Routing-status record.", routingStatusRecord) },
    }),
    async (c) => {
      const project = await pathProject(c, c.req.valid("param").project_id);
      return c.json(await routingRecord(c, project.id), 200);
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/projects/{project_id}/provider-health",
      summary: "Provider health",
      description: "Per provider, workload and model over the window (default 30m, at most 24h).",
      request: { params: projectPath, query: healthQuery },
      responses: { 200: json("Provider-health record.", providerHealthRecord) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const project = await pathProject(c, c.req.valid("param").project_id);
      return c.json(await healthRecord(c, project.id, query.window), 200);
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/projects/{project_id}/status",
      summary: "Compact status",
      description: "Lines to print as they are, plus the routing-status and provider-health records.",
      request: { params: projectPath, query: healthQuery },
      responses: { 200: json("Compact-status record.", compactStatusRecord) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const project = await pathProject(c, c.req.valid("param").project_id);
      const [routing, health] = await Promise.all([
        routingRecord(c, project.id),
        healthRecord(c, project.id, query.window),
      ]);
      return c.json(
        {
          project_id: project.id,
          lines: compactLines(routing, health),
          routing,
          health,
          generated_at: new Date().toISOString(),
        },
        200,
      );
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/projects/{project_id}/workload-status",
      summary: "Workload status",
      description:
        "Observed health, mode and route shares next to the declared route (window default and max 24h).",
      request: { params: projectPath, query: workloadStatusQuery },
      responses: { 200: json("Workload-status record.", workloadStatusRecord) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const project = await pathProject(c, c.req.valid("param").project_id);
      const { start, end } = windowBounds(query.window, new Date());
      const workloads = await workloadStatuses(c.get("services").db, { projectId: project.id, start, end });
      return c.json(
        {
          project_id: project.id,
          window: query.window,
          window_start: start.toISOString(),
          window_end: end.toISOString(),
          workloads,
          workload_count: workloads.length,
          generated_at: new Date().toISOString(),
        },
        200,
      );
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/projects/{project_id}/usage-summary",
      summary: "Usage summary",
      description: "Tokens, cost and error rate per group (window default 7d, at most 30d).",
      request: { params: projectPath, query: usageSummaryQuery },
      responses: { 200: json("Usage-summary record.", usageSummaryRecord) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const project = await pathProject(c, c.req.valid("param").project_id);
      const { start, end } = windowBounds(query.window, new Date());
      const groups = await usageSummaryGroups(
        c.get("services").db,
        { projectId: project.id, start, end },
        query.group_by,
      );
      return c.json(
        {
          project_id: project.id,
          window: query.window,
          window_start: start.toISOString(),
          window_end: end.toISOString(),
          group_by: query.group_by,
          groups,
          generated_at: new Date().toISOString(),
        },
        200,
      );
    },
  );
}

async function routingRecord(c: Context<AppEnv>, projectId: string) {
  const workloads = await routingStatus(c.get("services").db, projectId);
  return {
    project_id: projectId,
    workloads,
    workload_count: workloads.length,
    generated_at: new Date().toISOString(),
  };
}
export type RoutingRecord = Awaited<ReturnType<typeof routingRecord>>;

async function healthRecord(c: Context<AppEnv>, projectId: string, window: string) {
  const { start, end } = windowBounds(window, new Date());
  const health = await providerHealth(c.get("services").db, { projectId, start, end });
  return {
    project_id: projectId,
    window,
    window_start: start.toISOString(),
    window_end: end.toISOString(),
    ...health,
    generated_at: new Date().toISOString(),
  };
}
export type HealthRecord = Awaited<ReturnType<typeof healthRecord>>;
