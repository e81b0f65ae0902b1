import { callCost } from "@gateway/db";
import { notFound } from "../../errors.ts";
import type { RouteTable } from "../../route-registry.ts";
import { callCostRecord } from "./schemas.ts";

/** GET /admin/v1/orgs/:org_id/calls/:correlation_id/cost */
export function registerCallCost(t: RouteTable) {
  t.add(
    {
      method: "get",
      path: "/calls/:correlation_id/cost",
      summary: "Call cost",
      description:
        "By our request id, the upstream request id or the upstream response/message id; always answers the canonical request_id.",
      responses: { 200: { description: "Call-cost record.", schema: callCostRecord } },
    },
    async (c) => {
      const record = await callCost(
        c.get("services").db,
        c.get("orgId"),
        c.req.param("correlation_id") ?? "",
      );
      if (!record) throw notFound("Call");
      return c.json(record);
    },
  );
}
