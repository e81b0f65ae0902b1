import { limitsUpdateSchema } from "@gateway/contracts";
import type { Context } from "hono";
import { pathParam, type RouteTable } from "../route-registry.ts";
import type { AppEnv } from "../services/context.ts";
import {
  apiKeyHolder,
  type FindLimitsHolder,
  getLimits,
  projectHolder,
  putLimits,
  workloadHolder,
} from "../services/limits.ts";
import { scopeLimitsSchema } from "../services/serialize.ts";

const putDescription = [
  "Each field given is set, `null` clears it, and a field left out keeps its value (`{}` changes nothing).",
  "Counts are whole numbers from 1 to 1,000,000,000.",
  '`budget` is set or cleared as a whole: `usd` a decimal string of US dollars above zero with at most 6 decimals ("250.00"),',
  "`period` a calendar `day` or `month` in UTC, `applies_to` `managed` (calls served with the operator's credentials) or `all` (every priced call).",
  "The scope's gateway config entries are republished with the new limits.",
].join(" ");

/** The scopes limits are set on: where each lives under the admin surface, and how it is found. */
const scopes: { path: string; what: string; holder: (c: Context<AppEnv>) => FindLimitsHolder }[] = [
  {
    path: "/api_keys/:key_id/limits",
    what: "an API key",
    holder: (c) => apiKeyHolder(c.get("services"), c.get("orgId"), pathParam(c, "key_id")),
  },
  {
    path: "/projects/:project_id/limits",
    what: "a project",
    holder: (c) => projectHolder(c.get("services"), c.get("orgId"), pathParam(c, "project_id")),
  },
  {
    path: "/projects/:project_id/workloads/:workload_id/limits",
    what: "a workload",
    holder: (c) =>
      workloadHolder(
        c.get("services"),
        c.get("orgId"),
        pathParam(c, "project_id"),
        pathParam(c, "workload_id"),
      ),
  },
];

/** /admin/v1/orgs/:org_id: the spend and traffic limits of a key, a project and a workload. */
export function registerLimits(t: RouteTable) {
  for (const scope of scopes) {
    t.add(
      {
        method: "get",
        path: scope.path,
        summary: `Get the limits of ${scope.what}`,
        description:
          "A scope without limits answers every limit null. A revoked key or a deleted project is 404.",
        responses: { 200: { description: "The scope's limits.", schema: scopeLimitsSchema } },
      },
      async (c) => c.json(await getLimits(c.get("services").db, scope.holder(c))),
    );

    t.add(
      {
        method: "put",
        path: scope.path,
        summary: `Set or clear the limits of ${scope.what}`,
        description: putDescription,
        body: limitsUpdateSchema,
        responses: { 200: { description: "The limits as they now are.", schema: scopeLimitsSchema } },
      },
      async (c, { body }) => c.json(await putLimits(c.get("services"), scope.holder(c), body)),
    );
  }
}
