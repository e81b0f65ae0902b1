import { limitsEntry } from "@gateway/contracts";
import { type LimitsStatusEntry, limitsStatus } from "@gateway/db";
import type { LimitStore, ScopeUse } from "@gateway/limits";
import { z } from "zod";
import { defineRoute, json, type RouteApp, type RouteSite } from "../../openapi.ts";
import { windowBounds, windowParam } from "../../services/report-window.ts";
import { pathProject, projectPath } from "../path-params.ts";
import { limitsStatusRecord } from "./schemas.ts";

const limitsStatusQuery = z.strictObject({ window: windowParam("1h", "24h") });

/** GET /admin/v1/orgs/:org_id/projects/:project_id/limits-status */
export function registerLimitsStatus(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/projects/{project_id}/limits-status",
      summary: "Limits status",
      description:
        "The limits of the project, its workloads and the org's keys that have some, with current use, each " +
        "budget's priced spend in its period, and the calls each refused in the window (default 1h, at most 24h).",
      request: { params: projectPath, query: limitsStatusQuery },
      responses: { 200: json("Limits-status record.", limitsStatusRecord) },
    }),
    async (c) => {
      const query = c.req.valid("query");
      const project = await pathProject(c, c.req.valid("param").project_id);
      const { db, limits } = c.get("services");
      const now = new Date();
      const { start, end } = windowBounds(query.window, now);
      const entries = await limitsStatus(
        db,
        { orgId: project.orgId, projectId: project.id, projectSlug: project.slug, start, end },
        now,
      );
      const use = await useOf(limits, entries);
      return c.json(
        {
          project_id: project.id,
          window: query.window,
          window_start: start.toISOString(),
          window_end: end.toISOString(),
          scopes: entries.map((e, i) => {
            const u = use[i];
            const { requests_per_minute: rpm, tokens_per_minute: tpm, max_concurrent: concurrent } = e.limits;
            return {
              ...e,
              use: {
                requests_per_minute: u && rpm !== null ? u.requests : null,
                tokens_per_minute: u && tpm !== null ? u.tokens : null,
                concurrent: u && concurrent !== null ? u.concurrent : null,
              },
            };
          }),
          generated_at: new Date().toISOString(),
        },
        200,
      );
    },
  );
}

/** Each entry's use as the limiter counts it, in entry order; none without a limiter or limits. */
async function useOf(
  limits: LimitStore | null,
  entries: LimitsStatusEntry[],
): Promise<(ScopeUse | undefined)[]> {
  const limited = entries.flatMap((e) => {
    const entry = limitsEntry(e.limits);
    return entry ? [{ scope: e.scope, id: e.scope_id, limits: entry }] : [];
  });
  if (!limits || limited.length === 0) return entries.map(() => undefined);
  const found = await limits.use(limited);
  return entries.map((e) => found.find((u) => u.scope === e.scope && u.id === e.scope_id));
}
