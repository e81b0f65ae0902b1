import { callRows } from "@gateway/db/testing";
import { expect } from "vitest";
import { deployment, eventually, type Harness, putCatalogModel } from "../harness.ts";

/** The operator credential the routing tests' catalog deployments are paid with. */
export const catalogCredentials = { GATEWAY_UPSTREAM_KEY_CATALOG_B: "sk-operator-routing" };

/** A catalog model `id` served in provider B's chat format by the mock at `url`. */
export function putChatCatalogModel(h: Harness, id: string, url: string) {
  return putCatalogModel(h, id, {
    display_name: id,
    deployments: [deployment("chat_completions", url, "gpt-5.4-nano", "GATEWAY_UPSTREAM_KEY_CATALOG_B")],
  });
}

/** A new workload routing `pct` % of its traffic to `modelId`; returns its id. */
export async function createRoutedWorkload(
  h: Harness,
  name: string,
  modelId: string,
  pct: number,
): Promise<string> {
  const created = await h.cp("POST", `/customer/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads`, {
    name,
  });
  expect(created.status).toBe(201);
  const routed = await h.cp(
    "PUT",
    `/admin/v1/orgs/${h.orgId}/projects/${h.projectId}/workloads/${created.json.id}/route`,
    { model_id: modelId, route_traffic_pct: pct },
  );
  expect(routed.status).toBe(200);
  return created.json.id;
}

/** The workload's call rows, once there are `expected` of them. */
export function workloadCalls(h: Harness, workloadId: string, expected: number) {
  return eventually(async () => {
    const rows = await callRows(h.gateway.internals.db, { workloadId });
    return rows.length === expected ? rows : undefined;
  }, 10_000);
}
