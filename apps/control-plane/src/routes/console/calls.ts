import { type CallLogPosition, callDetail, callLogPage, callLogScanBudget } from "@gateway/db";
import { z } from "zod";
import { notFound } from "../../errors.ts";
import { defineRoute, json, type RouteApp, type RouteSite } from "../../openapi.ts";
import { pathProject, projectPath } from "../path-params.ts";
import { callDetailSchema, callLogQuery, callLogResponse } from "./call-schemas.ts";

/** GET /admin/v1/orgs/:org_id/projects/:project_id/calls and /calls/:request_id. */
export function registerCalls(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/projects/{project_id}/calls",
      summary: "Call log",
      description: `The project's calls, newest first, keyset-paged, with filters; never bodies. A cursor is bound to its project and filters. A page filtering by mode, route, status or stream outcome examines at most ${callLogScanBudget} calls: it may come back short or empty with a cursor, \`scanned_through\` saying how far back it looked.`,
      request: { params: projectPath, query: callLogQuery },
      responses: { 200: json("One page.", callLogResponse) },
    }),
    async (c) => {
      const project = await pathProject(c, c.req.valid("param").project_id);
      const { limit, cursor, ...filters } = c.req.valid("query");
      const { db, cursors } = c.get("services");
      // the raw query string's filters, sorted: a cursor only continues the listing it came from
      const scope = `calls:${project.id}:${JSON.stringify(Object.entries(filters).sort())}`;
      let after: CallLogPosition | null = null;
      if (cursor) {
        const [receivedAt, requestId] = cursors.decode(scope, cursor);
        after = { receivedAt: new Date(String(receivedAt)), requestId: String(requestId) };
      }
      const page = await callLogPage(
        db,
        {
          projectId: project.id,
          from: filters.from === undefined ? undefined : new Date(filters.from),
          to: filters.to === undefined ? undefined : new Date(filters.to),
          workloadId: filters.workload_id,
          model: filters.model,
          mode: filters.mode,
          route: filters.route,
          status: filters.status,
          streamOutcome: filters.stream_outcome,
          requestId: filters.request_id,
        },
        after,
        limit + 1,
      );
      const calls = page.items.slice(0, limit);
      const last = calls.at(-1);
      // a full page goes on after its last call; one cut short by the scan budget, after the
      // last call it examined
      const through = page.scannedThrough;
      const next =
        page.items.length > limit && last
          ? cursors.encode(scope, [last.received_at, last.request_id])
          : through
            ? cursors.encode(scope, [through.receivedAt.toISOString(), through.requestId])
            : null;
      return c.json({ calls, cursor: next, scanned_through: through?.receivedAt.toISOString() ?? null }, 200);
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/projects/{project_id}/calls/{request_id}",
      summary: "One call with its cost's provenance",
      description:
        "Everything the call row holds but the bodies (read them from the capture), and which price row priced it, how, when, and whether it was re-priced.",
      request: { params: projectPath.extend({ request_id: z.string() }) },
      responses: { 200: json("The call.", callDetailSchema) },
    }),
    async (c) => {
      const { project_id, request_id } = c.req.valid("param");
      const project = await pathProject(c, project_id);
      const call = await callDetail(c.get("services").db, project.id, request_id);
      if (!call) throw notFound("Call");
      return c.json(call, 200);
    },
  );
}
