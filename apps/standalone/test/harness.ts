import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@gateway/contracts";
import { calls, freshPostgresDatabase } from "@gateway/db";
import { type MockProvider, startMockProviders } from "@gateway/testkit";
import type { Tracer } from "@gateway/tracing";
import { inArray } from "drizzle-orm";
import { parseEnv } from "../src/env.ts";
import { type Standalone, startStandalone } from "../src/standalone.ts";

// biome-ignore lint/suspicious/noExplicitAny: tests read response fields they then assert on
export type Json = any;

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

export interface Harness {
  gateway: Standalone;
  providerA: MockProvider;
  providerB: MockProvider;
  dataDir: string;
  /** The first-start org and its starter key. */
  orgId: string;
  apiKey: string;
  /** The default project's `proj_` id. */
  projectId: string;
  /** JSON request to the control plane with the org's key (or `key`). */
  cp(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; json: Json }>;
  /** JSON request to the operator surface with the operator token. */
  op(method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }>;
  /** The capture envelope of `requestId` in the default project, once it can be read. */
  capture(requestId: string, timeoutMs?: number): Promise<Json>;
  /** A BYO chat-completions call through the gateway with `key`; returns the status. */
  chat(key: string, headers?: Record<string, string>): Promise<number>;
  close(): Promise<void>;
}

/**
 * The whole product on one port, as a user starts it, with the upstream providers replaced by
 * the testkit mocks. `store` picks PGlite (a temp data dir) or a fresh PostgreSQL database.
 */
export async function startHarness(
  options: {
    store?: "pglite" | "postgres";
    env?: Record<string, string>;
    /** Operator credentials by env var name. */
    credentials?: Record<string, string>;
    /** The tracer the apps make their spans with (tracing is off without one). */
    tracer?: Tracer;
  } = {},
): Promise<Harness> {
  const mocks = await startMockProviders();
  const dataDir = await mkdtemp(join(tmpdir(), "gw-test-"));
  const pg =
    options.store === "postgres" ? await freshPostgresDatabase(process.env.GATEWAY_TEST_POSTGRES_URL!) : null;
  const gateway = await startStandalone(
    parseEnv({
      PORT: "0",
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_PROVIDER_A_URL: mocks.providerA.url,
      GATEWAY_PROVIDER_B_URL: mocks.providerB.url,
      GATEWAY_OPERATOR_TOKEN: operatorToken,
      ...(pg ? { GATEWAY_DATABASE_URL: pg.config.url } : {}),
      ...options.env,
    }),
    { log: silentLogger, credentials: (name) => options.credentials?.[name], tracer: options.tracer ?? null },
  );
  if (!gateway.firstStart) throw new Error("expected a first start on an empty store");
  const { orgId, apiKey } = gateway.firstStart;

  const cp = controlPlaneClient(gateway.url, apiKey);
  const project = await cp("POST", `/admin/v1/orgs/${orgId}/projects/default`);

  return {
    gateway,
    providerA: mocks.providerA,
    providerB: mocks.providerB,
    dataDir,
    orgId,
    apiKey,
    projectId: project.json.id,
    cp,
    op: (method, path, body) => cp(method, path, body, operatorToken),
    capture: (requestId, timeoutMs) =>
      eventually(async () => {
        const res = await cp(
          "GET",
          `/customer/v1/orgs/${orgId}/projects/${project.json.id}/captures/${requestId}`,
        );
        return res.status === 200 ? res.json : undefined;
      }, timeoutMs),
    async chat(key, headers = {}) {
      const res = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "x-gateway-upstream-key": "sk-up", ...headers },
        body: JSON.stringify({ model: "gpt-5.4-mini", messages: [] }),
      });
      await res.arrayBuffer();
      return res.status;
    },
    async close() {
      await gateway.stop();
      await mocks.close();
      await pg?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Polls `probe` until it returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 2000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until each of these calls has its row and its pricing job has run. */
export async function untilCosted(gateway: Standalone, requestIds: string[]): Promise<void> {
  const { db, bus, jobs } = gateway.internals;
  await eventually(async () => {
    await bus.flush();
    await jobs.idle();
    const rows = await db
      .select({ reason: calls.unpricedReason })
      .from(calls)
      .where(inArray(calls.requestId, requestIds));
    return rows.length === requestIds.length && rows.every((r) => r.reason !== "pricing_pending")
      ? true
      : undefined;
  }, 10_000);
}

/** Operator call: create or replace a catalog model and its deployments. */
export async function putCatalogModel(h: Harness, id: string, body: unknown): Promise<void> {
  const res = await fetch(`${h.gateway.url}/operator/v1/models/${id}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${operatorToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`catalog put ${res.status}: ${await res.text()}`);
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
