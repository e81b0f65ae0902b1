import type { Context } from "hono";
import { z } from "zod";
import type { AppEnv } from "../services/context.ts";
import { liveProject } from "../services/projects.ts";

// The path parameters of the org-scoped surfaces. Any text is taken: an id that names nothing
// (or something of another org) is a 404 from the lookup, never a 400.

/** `/admin/v1/orgs/{org_id}`: the auth middleware has matched the key's org to it. */
export const orgPath = z.object({ org_id: z.string() });
/** `/customer/v1/orgs/{org_id}/projects/{project_id}`, and the admin routes under a project. */
export const projectPath = orgPath.extend({ project_id: z.string() });
export const workloadPath = projectPath.extend({ workload_id: z.string() });
export const keyPath = orgPath.extend({ key_id: z.string() });

/** The org's live project named by a path's `project_id` (see `liveProject`: 404 otherwise). */
export function pathProject(c: Context<AppEnv>, projectId: string) {
  return liveProject(c.get("services").db, c.get("orgId"), projectId);
}
