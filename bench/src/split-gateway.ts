/**
 * `BENCH_GATEWAY=split`: the gateway as the split deployment runs it, `apps/gateway` on Kafka and
 * Redis, with its control plane on PostgreSQL (idle during the load; it only creates the org and
 * publishes the key). The capture writer and costing worker are not started: in this deployment
 * they run elsewhere, and the events the gateway produces (bodies included) wait in Kafka. The
 * engines are the project's own, started through `infra/*.sh` on loopback and left running; their
 * CPU (the Kafka broker's above all) shows in the report's "other" column.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { freshPostgresDatabase } from "@gateway/db";
import { appNodeArgs } from "./app-command.ts";
import { startChild } from "./children.ts";
import type { Target } from "./measure.ts";

const engines = ["postgres", "redis", "kafka", "s3"] as const;
const operatorToken = `bench-operator-${randomBytes(12).toString("hex")}`;
const listening = (lines: string[]) => lines.some((l) => l.includes('"message":"listening"'));

interface SplitOptions {
  rootDir: string;
  outDir: string;
  /** The environment a user would give the apps (no stray GATEWAY_* of the caller's shell). */
  env: (overrides: Record<string, string>) => NodeJS.ProcessEnv;
  upstream: { providerA: string; providerB: string };
  /** Extra node flags for the gateway process (the profiler's). */
  nodeFlags: string[];
  spoolDir: string;
  startTimeoutMs: number;
}

function infra(rootDir: string, outDir: string, engine: string, command: "start" | "url"): string {
  const output = execFileSync(join(rootDir, "infra", `${engine}.sh`), [command], {
    cwd: rootDir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  appendFileSync(join(outDir, "infra.log"), `infra/${engine}.sh ${command}\n${output}`);
  return output.trim().split("\n").at(-1)!;
}

export async function startSplitGateway(options: SplitOptions): Promise<Target> {
  const { rootDir, outDir } = options;
  for (const engine of engines) infra(rootDir, outDir, engine, "start");
  const url = (engine: (typeof engines)[number]) => infra(rootDir, outDir, engine, "url");
  const run = randomBytes(4).toString("hex");
  const env = options.env({
    GATEWAY_DATABASE_URL: (await freshPostgresDatabase(url("postgres"))).config.url,
    GATEWAY_REDIS_URL: url("redis"),
    GATEWAY_REDIS_NAMESPACE: `bench-${run}`,
    GATEWAY_KAFKA_BROKERS: url("kafka"),
    GATEWAY_S3_ENDPOINT: url("s3"),
    GATEWAY_S3_BUCKET: "gateway-captures",
    GATEWAY_S3_PREFIX: `bench-${run}/`,
    GATEWAY_S3_REGION: "us-east-1",
    GATEWAY_S3_FORCE_PATH_STYLE: "true",
    GATEWAY_S3_ACCESS_KEY: "gateway-dev",
    GATEWAY_S3_SECRET_KEY: "gateway-dev-secret-key",
    GATEWAY_OPERATOR_TOKEN: operatorToken,
    GATEWAY_CURSOR_SECRET: `bench-cursor-secret-${run}`,
    GATEWAY_PROVIDER_A_URL: options.upstream.providerA,
    GATEWAY_PROVIDER_B_URL: options.upstream.providerB,
    GATEWAY_SPOOL_DIR: options.spoolDir,
    PORT: "0",
  });
  const start = (name: string, flags: string[] = []) =>
    startChild({
      name,
      args: appNodeArgs(options.rootDir, name, flags),
      env,
      cwd: rootDir,
      logPath: join(outDir, `${name}.log`),
      ready: listening,
      timeoutMs: options.startTimeoutMs,
    });
  const urlOf = (lines: string[]) => /"url":"([^"]+)"/.exec(lines.join("\n"))![1]!;

  // The control plane migrates the database, so it starts first.
  const controlPlane = await start("control-plane");
  const created = await fetch(`${urlOf(controlPlane.lines)}/operator/v1/orgs`, {
    method: "POST",
    headers: { authorization: `Bearer ${operatorToken}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench" }),
  });
  const body = await created.text();
  const apiKey = /"(sk_[A-Za-z0-9_]+)"/.exec(body)?.[1];
  if (!created.ok || !apiKey) throw new Error(`creating the bench org failed: ${created.status} ${body}`);
  if (process.env.BENCH_LIMITS === "true") await limitEverything(urlOf(controlPlane.lines), body, apiKey);
  const gateway = await start("gateway", options.nodeFlags);
  return { name: "gateway", pid: gateway.pid, baseUrl: urlOf(gateway.lines), bearer: apiKey };
}

/**
 * `BENCH_LIMITS=true`: every call is held to limits on its key, project and workload (requests,
 * tokens and calls at once, so high that none is refused), to measure what counting them costs.
 */
async function limitEverything(controlPlane: string, created: string, apiKey: string) {
  const org = JSON.parse(created) as {
    org: { id: string };
    api_key: { metadata: { id: string } };
    default_project: { id: string };
  };
  const admin = `${controlPlane}/admin/v1/orgs/${org.org.id}`;
  const headers = { authorization: `Bearer ${apiKey}`, "content-type": "application/json" };
  const put = async (path: string, limits: object) => {
    const res = await fetch(`${admin}${path}/limits`, {
      method: "PUT",
      headers,
      body: JSON.stringify(limits),
    });
    if (!res.ok) throw new Error(`setting bench limits on ${path} failed: ${res.status} ${await res.text()}`);
  };
  const project = `/projects/${org.default_project.id}`;
  const workloads = await fetch(`${controlPlane}/customer/v1/orgs/${org.org.id}${project}/workloads`, {
    headers,
  });
  const [workload] = ((await workloads.json()) as { workloads: { id: string }[] }).workloads;
  const huge = 1_000_000_000;
  await put(`/api_keys/${org.api_key.metadata.id}`, { requests_per_minute: huge });
  await put(project, { tokens_per_minute: huge });
  await put(`${project}/workloads/${workload!.id}`, { max_concurrent: huge });
}
