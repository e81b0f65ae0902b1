import { createHash } from "node:crypto";

// What the control-plane tests of both harnesses (the control plane alone in
// apps/control-plane/test, the whole product in apps/standalone/test) send and read alike.

// biome-ignore lint/suspicious/noExplicitAny: tests read response fields they then assert on
export type Json = any;

/** The operator token every test harness starts its control plane with. */
export const operatorToken = "test-operator-token-0123456789";

/** The hash an API key value is stored and cached under. */
export const keyHash = (value: string) => createHash("sha256").update(value).digest("hex");

/** JSON requests to a control plane at `base`, with a bearer `key` (`defaultKey` unless given). */
export function controlPlaneClient(base: string, defaultKey: string) {
  return async (method: string, path: string, body?: unknown, key = defaultKey) => {
    const res = await fetch(base + path, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as Json) : null };
  };
}

/** A control plane as a test drives it: as the first-start org (its starter key) and as the operator. */
export interface ControlPlaneSession {
  /** The first-start org and its starter key. */
  orgId: string;
  apiKey: string;
  /** The default project's `proj_` id. */
  projectId: string;
  /** JSON request to the control plane with the org's key (or `key`). */
  cp(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; json: Json }>;
  /** JSON request to the operator surface with the operator token. */
  op(method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }>;
}

/** The session of the first-start org `orgId` on the control plane at `base`; ensures its default project. */
export async function firstOrgSession(
  base: string,
  orgId: string,
  apiKey: string,
): Promise<ControlPlaneSession> {
  const cp = controlPlaneClient(base, apiKey);
  const project = await cp("POST", `/admin/v1/orgs/${orgId}/projects/default`);
  return {
    orgId,
    apiKey,
    projectId: project.json.id,
    cp,
    op: (method, path, body) => cp(method, path, body, operatorToken),
  };
}

/** An operator price row for `claude-sonnet-5` (the mock's Anthropic model), from 2026. */
export const price = {
  model: "claude-sonnet-5",
  effective_from: "2026-01-01T00:00:00Z",
  input_usd_per_mtok: "3",
  cache_write_5m_usd_per_mtok: "3.75",
  cache_write_1h_usd_per_mtok: "6",
  cache_read_usd_per_mtok: "0.30",
  output_usd_per_mtok: "15",
};

/** Operator call: create or replace a catalog model and its deployments. */
export async function putCatalogModel(
  session: ControlPlaneSession,
  id: string,
  body: unknown,
): Promise<void> {
  const res = await session.op("PUT", `/operator/v1/models/${id}`, body);
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`catalog put ${res.status}: ${JSON.stringify(res.json)}`);
}

/** A catalog deployment body pointing at a mock, paid with the credential named `credentialEnv`. */
export function deployment(
  wireFormat: "messages" | "chat_completions" | "responses",
  baseUrl: string,
  upstreamModel: string,
  credentialEnv: string,
) {
  return {
    provider_label: wireFormat === "messages" ? "provider_a" : "provider_b",
    wire_format: wireFormat,
    base_url: baseUrl,
    upstream_model: upstreamModel,
    credential_env: credentialEnv,
  };
}
