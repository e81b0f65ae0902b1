import { z } from "zod";
import { pathParam, type RouteTable } from "../route-registry.ts";
import { workloadObject, workloadSchema } from "../services/serialize.ts";
import { createWorkload, deleteWorkload, listWorkloads, updateWorkload } from "../services/workloads.ts";

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
const workloadListResponse = z.object({ workloads: z.array(workloadSchema) });

/** /customer/v1/orgs/:org_id/projects/:project_id/workloads */
export function registerWorkloads(t: RouteTable) {
  t.add(
    {
      method: "get",
      path: "/workloads",
      summary: "List the project's workloads",
      responses: {
        200: { description: "Oldest first; exactly one is_default.", schema: workloadListResponse },
      },
    },
    async (c) => {
      const rows = await listWorkloads(c.get("services").db, c.get("orgId"), pathParam(c, "project_id"));
      return c.json({ workloads: rows.map(workloadObject) });
    },
  );

  t.add(
    {
      method: "post",
      path: "/workloads",
      summary: "Create a workload",
      body: createWorkloadRequest,
      idempotent: {},
      responses: {
        201: { description: "The new workload.", schema: workloadSchema },
        409: { description: "The name is taken in this project." },
      },
    },
    async (c, { body }) => {
      const row = await createWorkload(c.get("services"), c.get("orgId"), pathParam(c, "project_id"), {
        name: body.name,
        captureEnabled: body.capture_enabled ?? true,
      });
      return c.json(workloadObject(row), 201);
    },
  );

  t.add(
    {
      method: "patch",
      path: "/workloads/:workload_id",
      summary: "Rename a workload or switch its capture",
      body: patchWorkloadRequest,
      responses: {
        200: { description: "The workload.", schema: workloadSchema },
        409: { description: "The new name is taken in this project." },
      },
    },
    async (c, { body }) => {
      const row = await updateWorkload(
        c.get("services"),
        c.get("orgId"),
        pathParam(c, "project_id"),
        pathParam(c, "workload_id"),
        () => ({ name: body.name, captureEnabled: body.capture_enabled }),
      );
      return c.json(workloadObject(row));
    },
  );

  t.add(
    {
      method: "delete",
      path: "/workloads/:workload_id",
      summary: "Delete a workload",
      description: "Its captures remain. The default workload cannot be deleted.",
      responses: { 204: { description: "Deleted." }, 409: { description: "It is the default workload." } },
    },
    async (c) => {
      await deleteWorkload(
        c.get("services"),
        c.get("orgId"),
        pathParam(c, "project_id"),
        pathParam(c, "workload_id"),
      );
      return c.body(null, 204);
    },
  );
}
