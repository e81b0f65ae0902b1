import {
  findLiveProject,
  providerHealth,
  routingStatus,
  type UsageGroupKey,
  usageGroupKeys,
  usageSummaryGroups,
  workloadStatuses,
} from "@gateway/db";
import type { Context } from "hono";
import { z } from "zod";
import { notFound } from "../../errors.ts";
import type { RouteTable } from "../../route-registry.ts";
import type { AppEnv } from "../../services/context.ts";
import { windowBounds, windowParam } from "../../services/report-window.ts";
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

/** The org's live project from `:project_id`, or 404. */
export async function reportProject(c: Context<AppEnv>) {
  const project = await findLiveProject(
    c.get("services").db,
    c.get("orgId"),
    c.req.param("project_id") ?? "",
  );
  if (!project) throw notFound("Project");
  return project;
}

/** Read-only reports under /admin/v1/orgs/:org_id/projects/:project_id. */
export function registerProjectReports(t: RouteTable) {
  t.add(
    {
      method: "get",
      path: "/projects/:project_id/routing-status",
      summary: "Routing status",
      description: "Each workload's declared route; route_mode follows active_traffic_pct.",
      responses: { 200: { description: "Routing-status record.", schema: routingStatusRecord } },
    },
    async (c) => {
      const project = await reportProject(c);
      return c.json(await routingRecord(c, project.id));
    },
  );

  t.add(
    {
      method: "get",
      path: "/projects/:project_id/provider-health",
      summary: "Provider health",
      description: "Per provider, workload and model over the window (default 30m, at most 24h).",
      query: healthQuery,
      responses: { 200: { description: "Provider-health record.", schema: providerHealthRecord } },
    },
    async (c, { query }) => {
      const project = await reportProject(c);
      return c.json(await healthRecord(c, project.id, query.window));
    },
  );

  t.add(
    {
      method: "get",
      path: "/projects/:project_id/status",
      summary: "Compact status",
      description: "Lines to print as they are, plus the routing-status and provider-health records.",
      query: healthQuery,
      responses: { 200: { description: "Compact-status record.", schema: compactStatusRecord } },
    },
    async (c, { query }) => {
      const project = await reportProject(c);
      const [routing, health] = await Promise.all([
        routingRecord(c, project.id),
        healthRecord(c, project.id, query.window),
      ]);
      return c.json({
        project_id: project.id,
        lines: compactLines(routing, health),
        routing,
        health,
        generated_at: new Date().toISOString(),
      });
    },
  );

  t.add(
    {
      method: "get",
      path: "/projects/:project_id/workload-status",
      summary: "Workload status",
      description:
        "Observed health, mode and route shares next to the declared route (window default and max 24h).",
      query: workloadStatusQuery,
      responses: { 200: { description: "Workload-status record.", schema: workloadStatusRecord } },
    },
    async (c, { query }) => {
      const project = await reportProject(c);
      const { start, end } = windowBounds(query.window, new Date());
      const workloads = await workloadStatuses(c.get("services").db, { projectId: project.id, start, end });
      return c.json({
        project_id: project.id,
        window: query.window,
        window_start: start.toISOString(),
        window_end: end.toISOString(),
        workloads,
        workload_count: workloads.length,
        generated_at: new Date().toISOString(),
      });
    },
  );

  t.add(
    {
      method: "get",
      path: "/projects/:project_id/usage-summary",
      summary: "Usage summary",
      description: "Tokens, cost and error rate per group (window default 7d, at most 30d).",
      query: usageSummaryQuery,
      responses: { 200: { description: "Usage-summary record.", schema: usageSummaryRecord } },
    },
    async (c, { query }) => {
      const project = await reportProject(c);
      const { start, end } = windowBounds(query.window, new Date());
      const groups = await usageSummaryGroups(
        c.get("services").db,
        { projectId: project.id, start, end },
        query.group_by,
      );
      return c.json({
        project_id: project.id,
        window: query.window,
        window_start: start.toISOString(),
        window_end: end.toISOString(),
        group_by: query.group_by,
        groups,
        generated_at: new Date().toISOString(),
      });
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
