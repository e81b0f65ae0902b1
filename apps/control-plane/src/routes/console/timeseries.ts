import { callTimeseries, timeseriesGroupKeys } from "@gateway/db";
import { z } from "zod";
import { defineRoute, json, type RouteApp, type RouteSite } from "../../openapi.ts";
import { pathProject, projectPath } from "../path-params.ts";

/** Each window the overview offers, and the slice its chart is cut in. */
const windows = {
  hour: { ms: 3_600_000, step: "1m", stepMs: 60_000 },
  day: { ms: 86_400_000, step: "1h", stepMs: 3_600_000 },
  week: { ms: 7 * 86_400_000, step: "6h", stepMs: 6 * 3_600_000 },
  "30d": { ms: 30 * 86_400_000, step: "1d", stepMs: 86_400_000 },
} as const;
type WindowName = keyof typeof windows;

const timeseriesQuery = z.strictObject({
  window: z
    .enum(Object.keys(windows) as [WindowName, ...WindowName[]])
    .default("day")
    .meta({ description: "hour (1-minute slices), day (1h), week (6h) or 30d (1d); default day." }),
  group_by: z
    .enum(timeseriesGroupKeys)
    .optional()
    .meta({ description: "Also one series per served model or per workload." }),
});

const ms = (what: string) =>
  z
    .int()
    .min(0)
    .nullable()
    .meta({
      description: `${what}: nearest rank, in whole milliseconds rounded down to the E12 series (10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82 x 10^n; exact below 10 ms); null without calls.`,
    });

const point = z.strictObject({
  start: z.iso.datetime().meta({ description: "Start of the slice (UTC)." }),
  calls: z.int().min(0),
  errors: z
    .int()
    .min(0)
    .meta({ description: "Calls without a complete answer (status >= 400 or a broken stream)." }),
  spend_usd: z
    .number()
    .min(0)
    .meta({ description: "The priced calls' customer cost, summed exactly, rounded once." }),
  p50_total_ms: ms("Median total time"),
  p95_total_ms: ms("95th percentile of the total time"),
  p50_first_byte_ms: ms("Median time to first byte"),
  p95_first_byte_ms: ms("95th percentile of the time to first byte"),
});

export const timeseriesRecord = z.strictObject({
  project_id: z.string(),
  window: z.enum(Object.keys(windows) as [WindowName, ...WindowName[]]),
  window_start: z.iso
    .datetime()
    .meta({ description: "The window's start (UTC): the moment of the request minus the window." }),
  window_end: z.iso.datetime().meta({ description: "The moment of the request (UTC)." }),
  time_zone: z
    .literal("UTC")
    .meta({ description: "Every time in the record is UTC; slices are aligned on UTC." }),
  step: z.enum(["1m", "1h", "6h", "1d"]).meta({ description: "The slice length." }),
  group_by: z.enum(timeseriesGroupKeys).nullable(),
  series: z.array(point).meta({
    description:
      "Every slice from the one holding window_start to the one holding window_end (those two partial), oldest first.",
  }),
  groups: z
    .array(
      z.strictObject({
        workload_id: z.string().nullable(),
        workload: z.string().nullable().meta({ description: "The workload's name." }),
        model: z.string().nullable().meta({ description: "The served model; null for calls that had none." }),
        series: z.array(point),
      }),
    )
    .meta({ description: "One series per group with calls in the window; empty without group_by." }),
  generated_at: z.iso.datetime(),
});

/** GET /admin/v1/orgs/:org_id/projects/:project_id/timeseries: the overview's charts. */
export function registerTimeseries(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/projects/{project_id}/timeseries",
      summary: "Time series",
      description:
        "Calls, errors, spend and p50/p95 latencies over the window, in UTC slices, overall and per group.",
      request: { params: projectPath, query: timeseriesQuery },
      responses: { 200: json("Time-series record.", timeseriesRecord) },
    }),
    async (c) => {
      const { window, group_by: groupBy = null } = c.req.valid("query");
      const project = await pathProject(c, c.req.valid("param").project_id);
      const { ms: length, step, stepMs } = windows[window];
      const end = new Date();
      const start = new Date(end.getTime() - length);
      const { series, groups } = await callTimeseries(
        c.get("services").db,
        { projectId: project.id, start, end },
        stepMs,
        groupBy,
      );
      return c.json(
        {
          project_id: project.id,
          window,
          window_start: start.toISOString(),
          window_end: end.toISOString(),
          time_zone: "UTC" as const,
          step,
          group_by: groupBy,
          series,
          groups,
          generated_at: new Date().toISOString(),
        },
        200,
      );
    },
  );
}
