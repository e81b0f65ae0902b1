/**
 * `BENCH_GATEWAY=split`: the gateway as the split deployment runs it, `apps/gateway` on Kafka and
 * Redis, with its control plane on PostgreSQL (idle during the load; it only creates the org and
 * publishes the key). The capture writer and costing worker are not started: in this deployment
 * they run elsewhere, and the events the gateway produces (bodies included) wait in Kafka. The
 * engines are the project's own, started through `infra/*.sh` on loopback and left running; their
 * CPU (the Kafka broker's above all) shows in the report's "other" column.
 *
 * `startSplitDeployment` (engines, a fresh database, the control plane, the bench org) is shared
 * with `pnpm bench:consumers` (bench/consumers/), which starts the consumers on it instead.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { freshPostgresDatabase } from "@gateway/db/testing";
import { appCommand } from "./app-command.ts";
import { benchCatalogKeyEnv, conversationCycle, routeBenchWorkload } from "./bench-route.ts";
import { type Child, startChild } from "./children.ts";
import type { BenchRoute } from "./config.ts";
import type { Target } from "./measure.ts";

const engineNames = ["postgres", "redis", "kafka", "s3"] as const;
export type Engine = (typeof engineNames)[number];
const operatorToken = `bench-operator-${randomBytes(12).toString("hex")}`;
const listening = (lines: string[]) => lines.some((l) => l.includes('"message":"listening"'));

interface DeploymentOptions {
  rootDir: string;
  outDir: string;
  /** The environment a user would give the apps (no stray GATEWAY_* of the caller's shell). */
  env: (overrides: Record<string, string>) => NodeJS.ProcessEnv;
  /** Each app gets `<spoolDir>/<app>`: a spool directory is one process's. */
  spoolDir: string;
  startTimeoutMs: number;
  /** More settings for every app (the gateway's provider URLs). */
  extraEnv?: Record<string, string>;
}

interface SplitOptions extends Omit<DeploymentOptions, "extraEnv"> {
  upstream: { providerA: string; providerB: string };
  /** Extra node flags for the gateway process (the profiler's). */
  nodeFlags: string[];
  /** The core to pin the gateway process to (BENCH_PIN), if any. */
  core: number | undefined;
  /** BENCH_ROUTE: a 30 % route on the bench workload, each request naming its conversation or none. */
  route: BenchRoute | null;
}

/**
 * Where the engines' scripts are: the repo's own `infra/`, or `BENCH_INFRA_DIR` (e.g. the main
 * checkout's, whose engines are running: a git worktree's own scripts keep their pid files under
 * the worktree and would find the ports taken).
 */
function infraDir(rootDir: string): string {
  return process.env.BENCH_INFRA_DIR ? resolve(process.env.BENCH_INFRA_DIR) : join(rootDir, "infra");
}

function infra(rootDir: string, outDir: string, engine: Engine, command: "start" | "url" | "status"): string {
  const output = execFileSync(join(infraDir(rootDir), `${engine}.sh`), [command], {
    cwd: rootDir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  appendFileSync(join(outDir, "infra.log"), `infra/${engine}.sh ${command}\n${output}`);
  return output.trim().split("\n").at(-1)!;
}

interface Engines {
  url(engine: Engine): string;
  /** The engine's server process, as its script's `status` names it; null if it names none. */
  pid(engine: Engine): number | null;
}

/** Starts each engine through its script (a no-op for one already running) and reads where it is. */
function startEngines(rootDir: string, outDir: string): Engines {
  for (const engine of engineNames) infra(rootDir, outDir, engine, "start");
  return {
    url: (engine) => infra(rootDir, outDir, engine, "url"),
    pid(engine) {
      const pid = /\bpid (\d+)/.exec(infra(rootDir, outDir, engine, "status"))?.[1];
      return pid ? Number(pid) : null;
    },
  };
}

/** The org `POST /operator/v1/orgs` created, with its starter key, default project and workload. */
export interface BenchOrg {
  orgId: string;
  projectId: string;
  workloadId: string;
  apiKeyId: string;
  apiKey: string;
}

export interface SplitDeployment {
  engines: Engines;
  /** The run's own names: Redis namespace and S3 prefix `bench-<run>`. */
  run: string;
  /** What every app of the run gets (engines' URLs, the fresh database, the run's namespaces). */
  env: NodeJS.ProcessEnv;
  controlPlaneUrl: string;
  org: BenchOrg;
  /** Starts `apps/<app>` as its `start` script does, with this deployment's environment. */
  start(
    app: string,
    options?: {
      nodeFlags?: string[];
      env?: Record<string, string>;
      ready?: (lines: string[]) => boolean;
      core?: number;
      /** Another entry than the app's own (its start script's runtime flags and environment kept). */
      entry?: string;
    },
  ): Promise<Child>;
  /** Drops the run's database (stop the apps first). */
  dropDatabase(): Promise<void>;
}

/** The URL an app logged when it began listening. */
export const urlOf = (lines: string[]) => /"url":"([^"]+)"/.exec(lines.join("\n"))![1]!;

/**
 * The engines, a fresh PostgreSQL database, Redis keys and an S3 prefix of the run's own, and the
 * control plane on them (it migrates the database and seeds the price table), with one org created
 * through its operator API.
 */
export async function startSplitDeployment(options: DeploymentOptions): Promise<SplitDeployment> {
  const { rootDir, outDir } = options;
  const engines = startEngines(rootDir, outDir);
  const run = randomBytes(4).toString("hex");
  const database = await freshPostgresDatabase(engines.url("postgres"));
  const env = options.env({
    GATEWAY_DATABASE_URL: database.config.url,
    GATEWAY_REDIS_URL: engines.url("redis"),
    GATEWAY_REDIS_NAMESPACE: `bench-${run}`,
    GATEWAY_KAFKA_BROKERS: engines.url("kafka"),
    GATEWAY_S3_ENDPOINT: engines.url("s3"),
    GATEWAY_S3_BUCKET: "gateway-captures",
    GATEWAY_S3_PREFIX: `bench-${run}/`,
    GATEWAY_S3_REGION: "us-east-1",
    GATEWAY_S3_FORCE_PATH_STYLE: "true",
    GATEWAY_S3_ACCESS_KEY: "gateway-dev",
    GATEWAY_S3_SECRET_KEY: "gateway-dev-secret-key",
    GATEWAY_OPERATOR_TOKEN: operatorToken,
    GATEWAY_CURSOR_SECRET: `bench-cursor-secret-${run}`,
    PORT: "0",
    ...options.extraEnv,
  });
  const start: SplitDeployment["start"] = (app, extra = {}) => {
    const command = appCommand(rootDir, app, extra.nodeFlags);
    if (extra.entry) command.args.splice(-1, 1, extra.entry);
    return startChild({
      name: app,
      args: command.args,
      env: { ...env, ...command.env, GATEWAY_SPOOL_DIR: join(options.spoolDir, app), ...extra.env },
      cwd: rootDir,
      logPath: join(outDir, `${app}.log`),
      ready: extra.ready ?? listening,
      core: extra.core,
      timeoutMs: options.startTimeoutMs,
    });
  };

  // The control plane migrates the database, so it starts first.
  const controlPlaneUrl = urlOf((await start("control-plane")).lines);
  const org = await createBenchOrg(controlPlaneUrl);
  return { engines, run, env, controlPlaneUrl, org, start, dropDatabase: database.drop };
}

async function createBenchOrg(controlPlane: string): Promise<BenchOrg> {
  const created = await fetch(`${controlPlane}/operator/v1/orgs`, {
    method: "POST",
    headers: { authorization: `Bearer ${operatorToken}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench" }),
  });
  const body = await created.text();
  const apiKey = /"(sk_[A-Za-z0-9_]+)"/.exec(body)?.[1];
  if (!created.ok || !apiKey) throw new Error(`creating the bench org failed: ${created.status} ${body}`);
  const org = JSON.parse(body) as {
    org: { id: string };
    api_key: { metadata: { id: string } };
    default_project: { id: string };
  };
  const workloads = await fetch(
    `${controlPlane}/customer/v1/orgs/${org.org.id}/projects/${org.default_project.id}/workloads`,
    { headers: { authorization: `Bearer ${apiKey}` } },
  );
  const [workload] = ((await workloads.json()) as { workloads: { id: string }[] }).workloads;
  if (!workload) throw new Error("the bench org's default project has no workload");
  return {
    orgId: org.org.id,
    projectId: org.default_project.id,
    workloadId: workload.id,
    apiKeyId: org.api_key.metadata.id,
    apiKey,
  };
}

export async function startSplitGateway(options: SplitOptions): Promise<Target> {
  const deployment = await startSplitDeployment({
    ...options,
    extraEnv: {
      GATEWAY_PROVIDER_A_URL: options.upstream.providerA,
      GATEWAY_PROVIDER_B_URL: options.upstream.providerB,
      ...(options.route ? { [benchCatalogKeyEnv]: "sk-bench-catalog" } : {}),
    },
  });
  if (process.env.BENCH_LIMITS === "true") await limitEverything(deployment);
  if (options.route) await routeBenchWorkload(deployment, options.upstream.providerB);
  const gateway = await deployment.start("gateway", { nodeFlags: options.nodeFlags, core: options.core });
  return {
    name: "gateway",
    pid: gateway.pid,
    baseUrl: urlOf(gateway.lines),
    bearer: deployment.org.apiKey,
    ...(options.route === "conversations" ? { nextConversation: conversationCycle() } : {}),
  };
}

/**
 * `BENCH_LIMITS=true`: every call is held to limits on its key, project and workload (requests,
 * tokens and calls at once, so high that none is refused), to measure what counting them costs.
 */
async function limitEverything({ controlPlaneUrl, org }: SplitDeployment) {
  const admin = `${controlPlaneUrl}/admin/v1/orgs/${org.orgId}`;
  const headers = { authorization: `Bearer ${org.apiKey}`, "content-type": "application/json" };
  const put = async (path: string, limits: object) => {
    const res = await fetch(`${admin}${path}/limits`, {
      method: "PUT",
      headers,
      body: JSON.stringify(limits),
    });
    if (!res.ok) throw new Error(`setting bench limits on ${path} failed: ${res.status} ${await res.text()}`);
  };
  const project = `/projects/${org.projectId}`;
  const huge = 1_000_000_000;
  await put(`/api_keys/${org.apiKeyId}`, { requests_per_minute: huge });
  await put(project, { tokens_per_minute: huge });
  await put(`${project}/workloads/${org.workloadId}`, { max_concurrent: huge });
}
