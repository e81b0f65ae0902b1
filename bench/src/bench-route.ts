/**
 * `BENCH_ROUTE=true` (split gateway): the bench workload routes 30 % of its traffic to a catalog
 * model served by the bench's mock, and every request names its conversation, so the figures
 * include what conversation affinity costs per request (the header, the hash, the arm).
 */
import { deployment } from "@gateway/testkit";
import type { SplitDeployment } from "./split-gateway.ts";

/** The operator's key for the bench catalog model (the mock accepts any). */
export const benchCatalogKeyEnv = "GATEWAY_UPSTREAM_KEY_BENCH_CATALOG";
const benchCatalogModel = "bench-catalog";
const conversations = 1_000;

/** Yields `c1` … `c1000` and again: every conversation comes back, turn after turn. */
export function conversationCycle(): () => string {
  let next = 0;
  return () => `c${(next++ % conversations) + 1}`;
}

/** The catalog model on the mock's provider B and a 30 % route to it on the bench workload. */
export async function routeBenchWorkload({ controlPlaneUrl, env, org }: SplitDeployment, providerB: string) {
  const put = async (path: string, token: string, body: object) => {
    const res = await fetch(`${controlPlaneUrl}${path}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`PUT ${path} failed: ${res.status} ${await res.text()}`);
  };
  await put(`/operator/v1/models/${benchCatalogModel}`, env.GATEWAY_OPERATOR_TOKEN!, {
    display_name: benchCatalogModel,
    deployments: [deployment("chat_completions", providerB, "gpt-5.4-nano", benchCatalogKeyEnv)],
  });
  await put(
    `/admin/v1/orgs/${org.orgId}/projects/${org.projectId}/workloads/${org.workloadId}/route`,
    org.apiKey,
    { model_id: benchCatalogModel, route_traffic_pct: 30 },
  );
}
