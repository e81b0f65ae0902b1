import { z } from "zod";
import { type IdempotentCreate, runIdempotently } from "../idempotency.ts";
import { defineRoute, json, jsonBody, type RouteApp, type RouteSite } from "../openapi.ts";
import { workloadObject, workloadSchema } from "../services/serialize.ts";
import { createWorkload, deleteWorkload, listWorkloads, updateWorkload } from "../services/workloads.ts";
import { projectPath, workloadPath } from "./path-params.ts";

export const workloadName = z
  .string()
  .regex(/^[a-z0-9_-]{1,63}$/, "1 to 63 lowercase letters, digits, hyphens or underscores")
  .meta({ description: "Unique per project; travels in the `x-gateway-workload` header." });

const createWorkloadRequest = z.strictObject({
  name: workloadName,
  capture_enabled: z.boolean().optional().meta({ description: "Default true (100% sampling)." }),
});
const patchWorkloadRequest = z.strictObject({
  name: workloadName.optional(),
  capture_enabled: z.boolean().optional(),
});
const create: IdempotentCreate = {};
export const workloadListResponse = z.strictObject({ workloads: z.array(workloadSchema) });

/** /customer/v1/orgs/:org_id/projects/:project_id/workloads */
export function registerWorkloads(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/workloads",
      summary: "List the project's workloads",
      request: { params: projectPath },
      responses: { 200: json("Oldest first; exactly one is_default.", workloadListResponse) },
    }),
    async (c) => {
      const { db } = c.get("services");
      const rows = await listWorkloads(db, c.get("orgId"), c.req.valid("param").project_id);
      return c.json({ workloads: rows.map(workloadObject) }, 200);
    },
  );

  app.openapi(
    defineRoute(
      site,
      {
        method: "post",
        path: "/workloads",
        summary: "Create a workload",
        request: { params: projectPath, body: jsonBody(createWorkloadRequest) },
        responses: {
          201: json("The new workload.", workloadSchema),
          409: { description: "The name is taken in this project." },
        },
      },
      create,
    ),
    async (c) => {
      const body = c.req.valid("json");
      return runIdempotently(c, site.security, create, body, async () => {
        const row = await createWorkload(c.get("services"), c.get("orgId"), c.req.valid("param").project_id, {
          name: body.name,
          captureEnabled: body.capture_enabled ?? true,
        });
        return c.json(workloadObject(row), 201);
      });
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "patch",
      path: "/workloads/{workload_id}",
      summary: "Rename a workload or switch its capture",
      request: { params: workloadPath, body: jsonBody(patchWorkloadRequest) },
      responses: {
        200: json("The workload.", workloadSchema),
        409: { description: "The new name is taken in this project." },
      },
    }),
    async (c) => {
      const { project_id, workload_id } = c.req.valid("param");
      const body = c.req.valid("json");
      const row = await updateWorkload(c.get("services"), c.get("orgId"), project_id, workload_id, () => ({
        name: body.name,
        captureEnabled: body.capture_enabled,
      }));
      return c.json(workloadObject(row), 200);
    },
  );

  app.openapi(
    defineRoute(site, {
      method: "delete",
      path: "/workloads/{workload_id}",
      summary: "Delete a workload",
      description: "Its captures remain. The default workload cannot be deleted.",
      request: { params: workloadPath },
      responses: { 204: { description: "Deleted." }, 409: { description: "It is the default workload." } },
    }),
    async (c) => {
      const { project_id, workload_id } = c.req.valid("param");
      await deleteWorkload(c.get("services"), c.get("orgId"), project_id, workload_id);
      return c.body(null, 204);
    },
  );
}
