import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@gateway/contracts";
import { s3Env } from "@gateway/engines";
import { openS3BlobStore } from "@gateway/engines/s3";
import { parseEnvWith } from "@gateway/runtime";
import { type MockProviders, startMockProviders } from "@gateway/testkit";
import type postgres from "postgres";
import { z } from "zod";
import { controlPlaneClient, type Json } from "../harness.ts";
import { type EngineSet, type PlainEngines, plainEngines } from "./engine-sets.ts";
import { type AppEntry, type AppProcess, startApp } from "./processes.ts";
import { secretFiles } from "./secure-engines.ts";
import { within } from "./traffic.ts";

export const operatorToken = "e2e-operator-token-0123456789";
/** The operator's provider-B key, which pays for `/v1/responses`. */
export const responsesKey = "sk-operator-e2e-responses";
/** The env var holding the operator's key for the e2e catalog's deployments (on the provider mocks). */
export const catalogKeyEnv = "GATEWAY_UPSTREAM_KEY_E2E_CATALOG";
const listening = /"url":"(http:\/\/[^"]+)"[^\n]*"message":"listening"/;
const consuming = /"message":"consuming"/;

/** A deployment under test, seen only from outside: URLs, and in the split case its engines. */
export interface Deployment {
  kind: "standalone" | "split";
  gateways: string[];
  controlPlane: string;
  mocks: MockProviders;
  cp(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; json: Json }>;
  /**
   * How many times so far a gateway began counting limits alone because Redis did not answer
   * within its timeout (from the gateways' logs; always 0 in process, where nothing is shared).
   */
  limitsFallbacks(): number;
  /** Prints the tail of every app's output, for a failed test to show why. */
  dumpLogs(): void;
  close(): Promise<void>;
}

export interface SplitDeployment<E extends EngineSet = PlainEngines> extends Deployment {
  kind: "split";
  apps: Record<"controlPlane" | "gateway1" | "gateway2" | "captureWriter" | "costingWorker", AppProcess>;
  /** Where a consumer's probe listener answers (`/livez`, `/readyz`), from its own log line. */
  probeUrl(app: "captureWriter" | "costingWorker"): string;
  /** Starts the capture writer again after a test stopped it. */
  restartCaptureWriter(): Promise<void>;
  /** Starts gateway `n` again after a test stopped it: same port, same spool (and journal) dir. */
  restartGateway(n: 1 | 2): Promise<void>;
  /** The deployment's engines, which the fault tests stop and start. */
  engines: E;
  env: Record<string, string>;
  sql: postgres.Sql;
}

export type AppName = "standalone" | "gateway" | "control-plane" | "capture-writer" | "costing-worker";

/** Where each app runs from: its script in the source tree, unless a test says otherwise. */
export interface StartOptions {
  entry?: (app: AppName) => AppEntry;
}
const fromSource = (app: AppName): AppEntry => `apps/${app}/src/main.ts`;

interface SplitOptions extends StartOptions {
  /** The operator token, the cursor secret and the managed provider key as `<NAME>_FILE` settings. */
  secretsAsFiles?: boolean;
  /** Settings every app gets besides the deployment's own (e.g. `GATEWAY_RETENTION_EVERY_MS`). */
  env?: Record<string, string>;
}

/** The default deployment: `apps/standalone/src/main.ts`, one process, embedded stores. */
export async function startStandaloneDeployment({
  entry = fromSource,
}: StartOptions = {}): Promise<Deployment> {
  const mocks = await startMockProviders();
  const dataDir = await mkdtemp(join(tmpdir(), "gw-e2e-"));
  const { app, match } = await startApp(
    "standalone",
    entry("standalone"),
    {
      PORT: "0",
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_OPERATOR_TOKEN: operatorToken,
      GATEWAY_PROVIDER_A_URL: mocks.providerA.url,
      GATEWAY_PROVIDER_B_URL: mocks.providerB.url,
      GATEWAY_PROVIDER_B_MANAGED_KEY: responsesKey,
      [catalogKeyEnv]: "sk-operator-e2e-catalog",
    },
    listening,
  );
  const url = match[1]!;
  return {
    kind: "standalone",
    gateways: [url],
    controlPlane: url,
    mocks,
    cp: controlPlaneClient(url, operatorToken),
    limitsFallbacks: () => 0,
    dumpLogs: () => console.log(`---- ${app.name}\n${app.output().slice(-30_000)}`),
    async close() {
      await app.stop();
      await mocks.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The split deployment as separate processes: one control plane, two gateways, one capture
 * writer, one costing worker. PostgreSQL (a fresh database) and S3 (a fresh key prefix) are the
 * shared engines .ci/run started; Kafka and Redis are instances of this deployment's own,
 * started by the same infra scripts on other ports, so the fault tests can stop them without
 * disturbing other suites.
 */
export function startSplitDeployment(options?: SplitOptions): Promise<SplitDeployment>;
export function startSplitDeployment<E extends EngineSet>(
  options: SplitOptions & { engines: (work: string, run: string) => Promise<E> },
): Promise<SplitDeployment<E>>;
export async function startSplitDeployment({
  entry = fromSource,
  engines: startEngines = plainEngines,
  secretsAsFiles = false,
  env: extraEnv = {},
}: SplitOptions & { engines?: (work: string, run: string) => Promise<EngineSet> } = {}): Promise<
  SplitDeployment<EngineSet>
> {
  const run = randomBytes(4).toString("hex");
  const mocks = await startMockProviders();
  const work = await mkdtemp(join(tmpdir(), "gw-split-"));
  const engines = await startEngines(work, run);
  // a deployment that fails to start leaves nothing running: its apps and engines are stopped
  const launched: AppProcess[] = [];
  const launch = async (...args: Parameters<typeof startApp>) => {
    const started = await startApp(...args);
    launched.push(started.app);
    return started;
  };
  try {
    const secrets = {
      GATEWAY_OPERATOR_TOKEN: operatorToken,
      GATEWAY_CURSOR_SECRET: `e2e-cursor-secret-${run}`,
      GATEWAY_PROVIDER_B_MANAGED_KEY: responsesKey,
    };
    const env: Record<string, string> = {
      ...engines.env,
      ...(secretsAsFiles ? await secretFiles(join(work, "secrets"), secrets) : secrets),
      GATEWAY_PROVIDER_A_URL: mocks.providerA.url,
      GATEWAY_PROVIDER_B_URL: mocks.providerB.url,
      [catalogKeyEnv]: "sk-operator-e2e-catalog",
      GATEWAY_DRAIN_TIMEOUT_MS: "5000",
      // as deployed behind a load balancer: past two failed checks of the test's HAProxy (300 ms apart)
      GATEWAY_DRAIN_DELAY_MS: "1500",
      PORT: "0",
      ...extraEnv,
    };
    // the control plane migrates the database, so it starts first
    const cp = await launch("control-plane", entry("control-plane"), env, listening);
    // Started once ready as a load balancer sees it (`/readyz`: Redis connected, the config cache
    // complete), not only listening: the tests send their traffic straight to it, with no balancer
    // to hold it back, and a gateway restarted between two tests answered 503 to the next one's
    // first request while its Redis connection was still coming up.
    const gateway = async (n: number, port = "0") => {
      const started = await launch(
        `gateway-${n}`,
        entry("gateway"),
        {
          ...env,
          PORT: port,
          GATEWAY_SPOOL_DIR: join(work, `spool-${n}`),
          GATEWAY_INSTANCE_ID: `gateway-${n}`,
        },
        listening,
      );
      try {
        await within(30_000, () => isReady(started.match[1]!), 50);
      } catch (error) {
        await started.app.stop("SIGKILL");
        throw new Error(
          `gateway-${n} never became ready: ${String(error)}\n${started.app.output().slice(-4_000)}`,
        );
      }
      return started;
    };
    const captureWriter = () =>
      launch(
        "capture-writer",
        entry("capture-writer"),
        { ...env, GATEWAY_SPOOL_DIR: join(work, "spool-capture-writer") },
        consuming,
      ).then((s) => s.app);
    const [g1, g2, cw, cost] = await Promise.all([
      gateway(1),
      gateway(2),
      captureWriter(),
      launch(
        "costing-worker",
        entry("costing-worker"),
        { ...env, GATEWAY_SPOOL_DIR: join(work, "spool-costing-worker") },
        consuming,
      ),
    ]);
    const apps = {
      controlPlane: cp.app,
      gateway1: g1.app,
      gateway2: g2.app,
      captureWriter: cw,
      costingWorker: cost.app,
    };
    return {
      kind: "split",
      gateways: [g1.match[1]!, g2.match[1]!],
      controlPlane: cp.match[1]!,
      mocks,
      apps,
      engines,
      env,
      sql: engines.sql,
      cp: controlPlaneClient(cp.match[1]!, operatorToken),
      probeUrl(app) {
        return listening.exec(apps[app].output())![1]!;
      },
      dumpLogs() {
        for (const app of Object.values(apps))
          console.log(`---- ${app.name}\n${app.output().slice(-30_000)}`);
      },
      limitsFallbacks: () =>
        [apps.gateway1, apps.gateway2]
          .map((g) => g.output().split("limits: redis did not answer").length - 1)
          .reduce((a, b) => a + b, 0),
      async restartCaptureWriter() {
        apps.captureWriter = await captureWriter();
      },
      async restartGateway(n) {
        const port = new URL(n === 1 ? g1.match[1]! : g2.match[1]!).port;
        apps[`gateway${n}`] = (await gateway(n, port)).app;
      },
      async close() {
        await Promise.all(Object.values(apps).map((a) => a.stop()));
        await engines.stop();
        await mocks.close();
        await rm(work, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.allSettled(launched.map((app) => app.stop("SIGKILL")));
    await engines.stop().catch(() => {});
    await mocks.close();
    await rm(work, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The deployment's capture bucket as its apps open it (from the same settings), for a test that
 * reads objects directly; close it when done.
 */
export function deploymentBlobs(env: Record<string, string>) {
  return openS3BlobStore(parseEnvWith(z.object(s3Env), env), silentLogger);
}

/** True once `/readyz` answers 200, else undefined (for `within`). */
async function isReady(url: string): Promise<true | undefined> {
  const answer = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) }).catch(() => null);
  await answer?.body?.cancel();
  return answer?.status === 200 ? true : undefined;
}
