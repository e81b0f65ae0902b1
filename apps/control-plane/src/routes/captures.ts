import {
  type CaptureListScope,
  type CapturePosition,
  captureIndexPage,
  findCaptureIndexRow,
  findWorkload,
  oldestCaptureUpload,
} from "@gateway/db";
import type { Context, TypedResponse } from "hono";
import type { JSONValue } from "hono/utils/types";
import { z } from "zod";
import { notFound } from "../errors.ts";
import { defineRoute, json, type RouteApp, type RouteSite } from "../openapi.ts";
import type { AppEnv } from "../services/context.ts";
import { captureListItem, captureListItemSchema } from "../services/serialize.ts";
import { pageQuery } from "../validate.ts";
import { pathProject, projectPath, workloadPath } from "./path-params.ts";

const listCapturesQuery = pageQuery(25);
type ListQuery = z.output<typeof listCapturesQuery>;

const captureListResponse = z.strictObject({
  captures: z.array(captureListItemSchema),
  truncated: z.boolean().meta({ description: "True when more rows exist past this page." }),
  cursor: z.string().nullable().meta({ description: "Pass back as `cursor`; null when not truncated." }),
});
const workloadCaptureListResponse = captureListResponse.extend({
  scanned_through: z.iso.date().meta({ description: "The oldest day the listing has examined." }),
});
const captureEnvelope = z
  .looseObject({ request_id: z.string() })
  .meta({ description: "The stored capture envelope, byte for byte (see docs/decisions.md)." });

/** /customer/v1/orgs/:org_id/projects/:project_id/captures and the per-workload listing. */
export function registerCaptures(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/captures",
      summary: "List the project's captures, newest first",
      request: { params: projectPath, query: listCapturesQuery },
      responses: { 200: json("One page.", captureListResponse) },
    }),
    async (c) => {
      const project = await pathProject(c, c.req.valid("param").project_id);
      const page = await listPage(c, c.req.valid("query"), `captures:${project.id}`, {
        projectId: project.id,
      });
      return c.json(page, 200);
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/workloads/{workload_id}/captures",
      summary: "List one workload's captures, newest first",
      request: { params: workloadPath, query: listCapturesQuery },
      responses: { 200: json("One page.", workloadCaptureListResponse) },
    }),
    async (c) => {
      const { project_id, workload_id: workloadId } = c.req.valid("param");
      const project = await pathProject(c, project_id);
      // A workload of another project (or org) is not found, rather than an empty listing.
      const workload = await findWorkload(c.get("services").db, project.id, workloadId);
      if (!workload) throw notFound("Workload");
      const page = await listPage(c, c.req.valid("query"), `captures:${project.id}:${workloadId}`, {
        projectId: project.id,
        workloadId,
      });
      return c.json({ ...page, scanned_through: await scannedThrough(c, project.id, page) }, 200);
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/captures/{request_id}",
      summary: "Read one capture envelope",
      request: { params: projectPath.extend({ request_id: z.string() }) },
      responses: { 200: json("The envelope as stored.", captureEnvelope) },
    }),
    async (c) => {
      const { project_id, request_id } = c.req.valid("param");
      const project = await pathProject(c, project_id);
      const { db, blobs } = c.get("services");
      const row = await findCaptureIndexRow(db, project.id, request_id);
      // a segment's row: exactly its capture's bytes; a row of one object per call: all of it
      const object = !row
        ? undefined
        : row.offset === null
          ? await blobs.get(row.key)
          : await blobs.getRange(row.key, row.offset, row.size);
      if (!object) throw notFound("Capture");
      // The capture is the envelope as one JSON line: its bytes are served as they are,
      // which the type system cannot check against the envelope's schema (the test does).
      const envelope = c.body(new Uint8Array(object), 200, { "content-type": "application/json" });
      return envelope as unknown as TypedResponse<
        { request_id: string; [field: string]: JSONValue },
        200,
        "json"
      >;
    },
  );
}

interface Page {
  captures: ReturnType<typeof captureListItem>[];
  truncated: boolean;
  cursor: string | null;
}

/** Newest first, keyset-paged on (uploaded_at, request_id); the cursor is bound to its scope. */
async function listPage(
  c: Context<AppEnv>,
  query: ListQuery,
  scope: string,
  of: CaptureListScope,
): Promise<Page> {
  const { limit, cursor } = query;
  const { db, cursors } = c.get("services");
  let after: CapturePosition | null = null;
  if (cursor) {
    const [uploaded, requestId] = cursors.decode(scope, cursor);
    after = { uploadedAt: new Date(String(uploaded)), requestId: String(requestId) };
  }
  const rows = await captureIndexPage(db, of, after, limit + 1);
  const truncated = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    captures: page.map(captureListItem),
    truncated,
    cursor: truncated && last ? cursors.encode(scope, [last.uploadedAt.toISOString(), last.requestId]) : null,
  };
}

/** The oldest day the listing has looked at: its last row's day, or the project's first day once exhausted. */
async function scannedThrough(c: Context<AppEnv>, projectId: string, page: Page): Promise<string> {
  const last = page.captures.at(-1);
  if (page.truncated && last) return last.uploaded.slice(0, 10);
  const oldest = await oldestCaptureUpload(c.get("services").db, projectId);
  return (oldest ?? new Date()).toISOString().slice(0, 10);
}
