import { captureIndex } from "@gateway/db";
import { and, asc, desc, eq, lt, or, type SQL } from "drizzle-orm";
import type { Context, Hono } from "hono";
import { z } from "zod";
import { notFound } from "../errors.ts";
import type { AppEnv } from "../services/context.ts";
import { findLiveProject } from "../services/projects.ts";
import { captureListItem } from "../services/serialize.ts";
import { queryParams } from "../validate.ts";

export const listCapturesQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().min(1).optional(),
});

/** /customer/v1/orgs/:org_id/projects/:project_id/captures and the per-workload listing. */
export function registerCaptures(app: Hono<AppEnv>) {
  app.get("/captures", async (c) => {
    const project = await liveProject(c);
    return c.json(await listPage(c, `captures:${project.id}`, eq(captureIndex.projectId, project.id)));
  });

  app.get("/workloads/:workload_id/captures", async (c) => {
    const project = await liveProject(c);
    const workloadId = c.req.param("workload_id");
    const scope = eq(captureIndex.workloadId, workloadId);
    const page = await listPage(
      c,
      `captures:${project.id}:${workloadId}`,
      and(eq(captureIndex.projectId, project.id), scope)!,
    );
    return c.json({ ...page, scanned_through: await scannedThrough(c, project.id, page) });
  });

  app.get("/captures/:request_id", async (c) => {
    const project = await liveProject(c);
    const { db, blobs } = c.get("services");
    const [row] = await db
      .select()
      .from(captureIndex)
      .where(
        and(eq(captureIndex.projectId, project.id), eq(captureIndex.requestId, c.req.param("request_id"))),
      );
    const object = row ? await blobs.get(row.key) : undefined;
    if (!object) throw notFound("Capture");
    // The stored object is the envelope as one JSON line: serve its bytes as they are.
    return c.body(new Uint8Array(object), 200, {
      "content-type": "application/json",
    });
  });
}

async function liveProject(c: Context<AppEnv>) {
  const project = await findLiveProject(c.get("services").db, c.get("orgId"), c.req.param("project_id")!);
  if (!project) throw notFound("Project");
  return project;
}

interface Page {
  captures: ReturnType<typeof captureListItem>[];
  truncated: boolean;
  cursor: string | null;
}

/** Newest first, keyset-paged on (uploaded_at, request_id); the cursor is bound to its scope. */
async function listPage(c: Context<AppEnv>, scope: string, where: SQL): Promise<Page> {
  const { limit, cursor } = queryParams(c, listCapturesQuery);
  const { db, cursors } = c.get("services");
  let after: SQL | undefined;
  if (cursor) {
    const [uploaded, requestId] = cursors.decode(scope, cursor);
    const at = new Date(String(uploaded));
    after = or(
      lt(captureIndex.uploadedAt, at),
      and(eq(captureIndex.uploadedAt, at), lt(captureIndex.requestId, String(requestId))),
    );
  }
  const rows = await db
    .select()
    .from(captureIndex)
    .where(after ? and(where, after) : where)
    .orderBy(desc(captureIndex.uploadedAt), desc(captureIndex.requestId))
    .limit(limit + 1);
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
  const [oldest] = await c
    .get("services")
    .db.select({ uploadedAt: captureIndex.uploadedAt })
    .from(captureIndex)
    .where(eq(captureIndex.projectId, projectId))
    .orderBy(asc(captureIndex.uploadedAt))
    .limit(1);
  return (oldest?.uploadedAt ?? new Date()).toISOString().slice(0, 10);
}
