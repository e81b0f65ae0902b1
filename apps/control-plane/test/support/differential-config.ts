import { type ControlPlaneSession, controlPlaneClient, type Json } from "@gateway/testkit";
import type { ControlPlaneHarness } from "./harness.ts";

export interface WorkloadConfig {
  id: string;
  orgId: string;
  projectId: string;
  /** Share of its traffic routed to the catalog model (0: passthrough). */
  routePct: number;
  /** The keys of its org, which its calls use. */
  keyIds: string[];
}

interface OrgConfig {
  id: string;
  apiKey: string;
  projectIds: string[];
}

/** What the control plane minted while it was configured, in the order it minted it. */
export interface DifferentialConfig {
  orgs: OrgConfig[];
  workloads: WorkloadConfig[];
  /** Every id the control plane minted, in creation order (the ids differ per store, their order does not). */
  mintedIds: string[];
}

type Client = ControlPlaneSession["cp"];

/** A request that must succeed: the differential test configures both stores the same way or not at all. */
async function must(client: Client, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await client(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json;
}

const price = (model: string, from: string, rates: [string, string, string, string, string]) => ({
  model,
  effective_from: from,
  input_usd_per_mtok: rates[0],
  cache_write_5m_usd_per_mtok: rates[1],
  cache_write_1h_usd_per_mtok: rates[2],
  cache_read_usd_per_mtok: rates[3],
  output_usd_per_mtok: rates[4],
});

/** Prices before any call: six decimals, and rates that make sub-cent costs of odd lengths. */
const initialPrices = [
  price("diff-a", "2026-01-01T00:00:00Z", ["3.123457", "3.75", "6.000001", "0.312346", "15.5"]),
  price("diff-b", "2026-01-01T00:00:00Z", ["0.000001", "0", "0", "0.000003", "0.7"]),
  price("diff-small", "2026-01-01T00:00:00Z", ["0.25", "0.3125", "0.5", "0.025", "1.999999"]),
  price("modèle-ü-🚀", "2026-01-01T00:00:00Z", ["0.7", "0.875", "1.4", "0.07", "2.8"]),
];

/** Prices added after their calls were recorded: each queues a re-pricing job. Effective mid-day. */
export const repricings = {
  /** After the first part of the calls: a cheaper diff-a from Feb 8 and a first price for diff-unknown. */
  midRun: [
    price("diff-a", "2026-02-08T13:45:10.250Z", ["2.999999", "3.5", "6", "0.000001", "14.5"]),
    price("diff-unknown", "2026-02-03T06:00:00Z", ["1.1", "1.375", "2.2", "0.11", "5.5"]),
  ],
  /** After every call: diff-b and the catalog model change for the last days. */
  atEnd: [
    price("diff-b", "2026-02-27T18:30:00Z", ["0.5", "0.625", "1", "0.05", "2.5"]),
    price("diff-small", "2026-03-01T00:00:00Z", ["0.2", "0.25", "0.4", "0.02", "1.6"]),
  ],
};

export async function addPrices(session: ControlPlaneSession, prices: Json[]): Promise<void> {
  for (const body of prices) await must(session.op, "POST", "/operator/v1/prices", body);
}

/**
 * Configures a fresh control plane through its HTTP API, as an operator and its orgs would: the
 * catalog model, prices, three orgs (the first-start one and two made by the operator) with a
 * second key each, a second project each, three workloads per project (passthrough, split to the
 * catalog model, all routed to it), and limits on every scope kind (budgets by day and month,
 * for all calls and managed ones). Every workload is changed once, so its `updated_at` is the
 * control plane's clock (faked by the test) and not the database's.
 */
export async function configure(session: ControlPlaneHarness): Promise<DifferentialConfig> {
  const minted: string[] = [];
  const orgs: OrgConfig[] = [];
  const workloads: WorkloadConfig[] = [];
  await must(session.op, "PUT", "/operator/v1/models/diff-small", {
    display_name: "Diff small",
    deployments: [
      {
        provider_label: "managed",
        wire_format: "messages",
        base_url: "http://127.0.0.1:9",
        upstream_model: "diff-small-1",
        credential_env: "GATEWAY_UPSTREAM_KEY_DIFF",
        priority: 0,
      },
    ],
  });
  await addPrices(session, initialPrices);

  const firstOrg = { id: session.orgId, apiKey: session.apiKey, defaultProject: session.projectId };
  const made = [firstOrg];
  for (const name of ["Second org", "Third org"]) {
    const created = await must(session.op, "POST", "/operator/v1/orgs", { name });
    made.push({
      id: created.org.id,
      apiKey: created.api_key.value,
      defaultProject: created.default_project.id,
    });
  }
  for (const [n, org] of made.entries()) {
    const cp = controlPlaneClient(session.url, org.apiKey);
    const admin = `/admin/v1/orgs/${org.id}`;
    minted.push(org.id, org.defaultProject);
    const keys: Json[] = (await must(cp, "GET", `${admin}/api_keys`)).api_keys;
    const keyIds: string[] = keys.map((k) => k.id);
    const second = await must(cp, "POST", `${admin}/api_keys`, { name: `second-${n}` });
    keyIds.push(second.metadata.id);
    minted.push(...keyIds);
    await must(cp, "PUT", `${admin}/api_keys/${second.metadata.id}/limits`, { requests_per_minute: 120 + n });
    const extra = await must(cp, "POST", `${admin}/projects`, { slug: `web-${n}`, name: `Web ${n}` });
    minted.push(extra.id);
    const projectIds = [org.defaultProject, extra.id];
    for (const projectId of projectIds) {
      const ids = await projectWorkloads(cp, org.id, projectId, minted);
      // fractional dials: the routing status rounds the stored value on both stores
      const routePcts = [0, 33.3 + n * 11.35, 100];
      for (const [w, id] of ids.entries()) {
        const routePct = routePcts[w]!;
        const path = `${admin}/projects/${projectId}/workloads/${id}`;
        if (routePct > 0)
          await must(cp, "PUT", `${path}/route`, { model_id: "diff-small", route_traffic_pct: routePct });
        else await must(cp, "PATCH", path, { capture_enabled: false });
        workloads.push({ id, orgId: org.id, projectId, routePct, keyIds });
      }
      await limits(cp, admin, projectId, ids, n);
    }
    orgs.push({ id: org.id, apiKey: org.apiKey, projectIds });
  }
  return { orgs, workloads, mintedIds: minted };
}

/** The project's default workload and two more, in creation order. */
async function projectWorkloads(cp: Client, orgId: string, projectId: string, minted: string[]) {
  const base = `/customer/v1/orgs/${orgId}/projects/${projectId}/workloads`;
  const [main] = (await must(cp, "GET", base)).workloads as Json[];
  const ids: string[] = [main.id];
  for (const name of ["agent", "batch"]) ids.push((await must(cp, "POST", base, { name })).id);
  minted.push(...ids);
  return ids;
}

async function limits(cp: Client, admin: string, projectId: string, workloadIds: string[], n: number) {
  const project = `${admin}/projects/${projectId}`;
  await must(cp, "PUT", `${project}/limits`, {
    budget: { usd: `${n + 1}.75`, period: "day", applies_to: "all" },
  });
  await must(cp, "PUT", `${project}/workloads/${workloadIds[1]}/limits`, {
    tokens_per_minute: 50_000,
    max_concurrent: 4,
    budget: { usd: "40.123457", period: "month", applies_to: "managed" },
  });
  await must(cp, "PUT", `${project}/workloads/${workloadIds[2]}/limits`, {
    budget: { usd: "0.000001", period: "day", applies_to: "all" },
  });
}
