import { callCost } from "@gateway/db";
import { z } from "zod";
import { notFound } from "../../errors.ts";
import { defineRoute, json, type RouteApp, type RouteSite } from "../../openapi.ts";
import { orgPath } from "../path-params.ts";
import { callCostRecord } from "./schemas.ts";

/** GET /admin/v1/orgs/:org_id/calls/:correlation_id/cost */
export function registerCallCost(app: RouteApp, site: RouteSite) {
  app.openapi(
    defineRoute(site, {
      method: "get",
      path: "/calls/{correlation_id}/cost",
      summary: "Call cost",
      description:
        "By our request id, the upstream request id or the upstream response/message id; always answers the canonical request_id.",
      request: { params: orgPath.extend({ correlation_id: z.string() }) },
      responses: { 200: json("Call-cost record.", callCostRecord) },
    }),
    async (c) => {
      const record = await callCost(
        c.get("services").db,
        c.get("orgId"),
        c.req.valid("param").correlation_id,
      );
      if (!record) throw notFound("Call");
      return c.json(record, 200);
    },
  );
}
