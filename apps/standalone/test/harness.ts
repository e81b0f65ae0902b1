import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@gateway/contracts";
import { callRows, freshPostgresDatabase } from "@gateway/db/testing";
import {
  type ControlPlaneSession,
  eventually,
  firstOrgSession,
  type Json,
  type MockProvider,
  type MockProviders,
  operatorToken,
  startMockProviders,
} from "@gateway/testkit";
import type { Tracer } from "@gateway/tracing";
import { parseEnv } from "../src/env.ts";
import { type Standalone, startStandalone } from "../src/standalone.ts";

export {
  controlPlaneClient,
  deployment,
  eventually,
  type Json,
  keyHash,
  operatorToken,
  price,
  putCatalogModel,
} from "@gateway/testkit";

export interface Harness extends ControlPlaneSession {
  gateway: Standalone;
  providerA: MockProvider;
  providerB: MockProvider;
  dataDir: string;
  /** The capture envelope of `requestId` in the default project, once it can be read. */
  capture(requestId: string, timeoutMs?: number): Promise<Json>;
  /** A BYO chat-completions call through the gateway with `key`; returns the status. */
  chat(key: string, headers?: Record<string, string>): Promise<number>;
  close(): Promise<void>;
}

/** The settings of a standalone process on `dataDir` and a free port, the mocks as its providers. */
export function testEnv(dataDir: string, mocks: MockProviders, more: Record<string, string> = {}) {
  return parseEnv({
    PORT: "0",
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_PROVIDER_A_URL: mocks.providerA.url,
    GATEWAY_PROVIDER_B_URL: mocks.providerB.url,
    ...more,
  });
}

/**
 * The whole product on one port, as a user starts it, with the upstream providers replaced by
 * the testkit mocks. `store` picks SQLite (in a temp data dir) or a fresh PostgreSQL database.
 */
export async function startHarness(
  options: {
    store?: "sqlite" | "postgres";
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
    testEnv(dataDir, mocks, {
      GATEWAY_OPERATOR_TOKEN: operatorToken,
      ...(pg ? { GATEWAY_DATABASE_URL: pg.config.url } : {}),
      ...options.env,
    }),
    { log: silentLogger, credentials: (name) => options.credentials?.[name], tracer: options.tracer ?? null },
  );
  if (!gateway.firstStart) throw new Error("expected a first start on an empty store");
  const { orgId, apiKey } = gateway.firstStart;

  const session = await firstOrgSession(gateway.url, orgId, apiKey);

  return {
    ...session,
    gateway,
    providerA: mocks.providerA,
    providerB: mocks.providerB,
    dataDir,
    capture: (requestId, timeoutMs) =>
      eventually(async () => {
        const res = await session.cp(
          "GET",
          `/customer/v1/orgs/${orgId}/projects/${session.projectId}/captures/${requestId}`,
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

/** Waits until each of these calls has its row and its pricing job has run. */
export async function untilCosted(gateway: Standalone, requestIds: string[]): Promise<void> {
  const { db, bus, jobs } = gateway.internals;
  await eventually(async () => {
    await bus.flush();
    await jobs.idle();
    const rows = await callRows(db, { requestIds });
    return rows.length === requestIds.length && rows.every((r) => r.unpricedReason !== "pricing_pending")
      ? true
      : undefined;
  }, 10_000);
}
