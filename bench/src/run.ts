/**
 * `pnpm bench`: the gateway (standalone, or split with BENCH_GATEWAY=split; capture on) against a minimal undici passthrough, both in
 * front of the testkit mock, measured alternately in one run on one machine, with the peers of
 * BENCH_PEERS beside them. Writes bench/.out/latest.md; exits 1 if any request failed.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { appCommand, appEnv } from "./app-command.ts";
import { assertAlive, startChild, stopChildren } from "./children.ts";
import { pinnedCores, readConfig } from "./config.ts";
import { type ScenarioName, scenariosFor } from "./load.ts";
import { type Measurement, measure, type Target, type TargetName } from "./measure.ts";
import { measureOneClient, type OneClientMeasurement } from "./one-client.ts";
import { peerVersion, startPeer } from "./peers.ts";
import { clockTicksPerSecond, memory } from "./proc-stats.ts";
import { type ProfileSummary, summariseProfile } from "./profile-summary.ts";
import { failures, renderReport } from "./report.ts";
import { startSplitGateway } from "./split-gateway.ts";

const benchDir = resolve(import.meta.dirname, "..");
const rootDir = resolve(benchDir, "..");
const outDir = join(benchDir, ".out");
const profileDir = join(outDir, "profiles");
const startTimeoutMs = 60_000;
const dataDir = mkdtempSync(join(tmpdir(), "gateway-bench-"));

/** Stops every child and removes the gateway's data dir; safe to call twice. */
async function cleanup(graceMs: number): Promise<void> {
  await stopChildren(graceMs);
  rmSync(dataDir, { recursive: true, force: true });
}

function jsonLine(lines: string[]): Record<string, unknown> | null {
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      // A log line that merely starts with a brace; keep looking.
    }
  }
  return null;
}

/**
 * The environment a user would give the gateway, without whatever GATEWAY_* the caller's shell
 * holds; BENCH_ACCESS_LOG=true measures it with its access log (off by default), BENCH_METRICS=false
 * without its metrics (on by default, as a user runs it).
 */
function gatewayEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  return appEnv({
    GATEWAY_ACCESS_LOG: process.env.BENCH_ACCESS_LOG ?? "false",
    GATEWAY_METRICS: process.env.BENCH_METRICS ?? "true",
    ...overrides,
  });
}

/** The bench process, all its threads, on the load's core; the children it starts unpinned inherit it. */
function pinLoadGenerator(): void {
  if (cpus().length < 2) throw new Error("BENCH_PIN needs at least two cores");
  execFileSync(
    "taskset",
    ["--all-tasks", "--cpu-list", "--pid", String(pinnedCores.load), String(process.pid)],
    { stdio: "ignore" },
  );
}

async function startTargets(config: ReturnType<typeof readConfig>) {
  const node = ["--experimental-strip-types"];
  const core = config.pin ? pinnedCores.target : undefined;
  const mock = await startChild({
    name: "mock",
    args: [
      ...node,
      "packages/testkit/src/bin/mock-providers.ts",
      "--no-record",
      ...(config.upstreamIds === "fresh" ? ["--fresh-ids"] : []),
    ],
    env: process.env,
    cwd: rootDir,
    logPath: join(outDir, "mock.log"),
    ready: (lines) => jsonLine(lines)?.providerB !== undefined,
    timeoutMs: startTimeoutMs,
  });
  const upstream = jsonLine(mock.lines) as { providerA: string; providerB: string };

  const proxy = await startChild({
    name: "proxy",
    args: [...node, join(benchDir, "src/minimal-proxy.ts")],
    env: { ...process.env, UPSTREAM_URL: upstream.providerB, PORT: "0" },
    cwd: rootDir,
    logPath: join(outDir, "proxy.log"),
    ready: (lines) => jsonLine(lines)?.url !== undefined,
    core,
    timeoutMs: startTimeoutMs,
  });

  const profileFlags = [
    ...(config.profile
      ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, "--cpu-prof-name=gateway.cpuprofile"]
      : []),
    ...config.gatewayNodeFlags,
  ];
  const gatewayTarget =
    config.gateway === "split"
      ? await startSplitGateway({
          rootDir,
          outDir,
          env: gatewayEnv,
          upstream,
          nodeFlags: profileFlags,
          core,
          spoolDir: join(dataDir, "spool"),
          startTimeoutMs,
          route: config.route,
        })
      : await startStandaloneGateway(upstream, profileFlags, core);
  const peerTargets: Target[] = [];
  for (const peer of config.peers) {
    peerTargets.push(
      await startPeer(peer, { rootDir, outDir, upstream: upstream.providerB, core, startTimeoutMs }),
    );
  }

  const proxyTarget: Target = {
    name: "proxy",
    pid: proxy.pid,
    baseUrl: String(jsonLine(proxy.lines)!.url),
    bearer: "sk-any",
  };
  return { mock, targets: [proxyTarget, gatewayTarget, ...peerTargets] };
}

/** The all-in-one app on a fresh data dir, with the key it prints on first start. */
async function startStandaloneGateway(
  upstream: { providerA: string; providerB: string },
  nodeFlags: string[],
  core: number | undefined,
): Promise<Target> {
  const command = appCommand(rootDir, "standalone", nodeFlags);
  const gateway = await startChild({
    name: "gateway",
    args: command.args,
    env: gatewayEnv({
      ...command.env,
      PORT: "0",
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_PROVIDER_A_URL: upstream.providerA,
      GATEWAY_PROVIDER_B_URL: upstream.providerB,
    }),
    cwd: rootDir,
    logPath: join(outDir, "gateway.log"),
    // Ready once it has said where it listens and printed the first-start key.
    ready: (lines) => lines.some((l) => l.includes('"url":"')) && lines.some((l) => /api key: sk_/.test(l)),
    core,
    timeoutMs: startTimeoutMs,
  });
  const output = gateway.lines.join("\n");
  return {
    name: "gateway",
    pid: gateway.pid,
    baseUrl: /"url":"([^"]+)"/.exec(output)![1]!,
    bearer: /api key: (sk_\S+)/.exec(output)![1]!,
  };
}

/** The code measured: others commit while a run goes on, so the report names what it ran. */
function revision(): string {
  try {
    const git = (...args: string[]) => execFileSync("git", args, { cwd: rootDir, encoding: "utf8" }).trim();
    const dirty = git("status", "--porcelain", "--", "apps", "packages") !== "";
    return `${git("rev-parse", "--short", "HEAD")}${dirty ? " + uncommitted changes in apps/ or packages/" : ""}`;
  } catch {
    return "unknown revision";
  }
}

async function main(): Promise<number> {
  const config = readConfig(process.env);
  const scenarios = scenariosFor(config.promptBytes, rootDir);
  mkdirSync(outDir, { recursive: true });
  if (config.profile) rmSync(profileDir, { recursive: true, force: true });
  const startedAt = new Date();
  const code = revision();
  const clockTicks = clockTicksPerSecond();
  const measurements: Measurement[] = [];
  const oneClient: OneClientMeasurement[] = [];
  // Before anything starts: a peer not installed fails the run here, saying how to install it.
  const peers = config.peers.map((peer) => `${peer} ${peerVersion(rootDir, peer)}`);

  const startRssMb = new Map<TargetName, number>();
  // A failure mid-run still gets a report of what was measured, so latest.md never shows an older run.
  let fatal: string | null = null;
  try {
    if (config.pin) pinLoadGenerator();
    const started = await startTargets(config);
    for (const target of started.targets) startRssMb.set(target.name, memory(target.pid).rssKb / 1024);
    const context = { config, clockTicks, mockPid: started.mock.pid };
    for (let round = 1; round <= config.rounds; round++) {
      // Rotate who goes first, so no target always inherits another's heat or leftovers.
      const first = (round - 1) % started.targets.length;
      const order = [...started.targets.slice(first), ...started.targets.slice(0, first)];
      for (const scenario of scenarios) {
        for (const target of order) {
          process.stderr.write(`round ${round}: ${scenario.name} → ${target.name} …\n`);
          const during = `round ${round}, ${scenario.name}, ${target.name}`;
          try {
            measurements.push(await measure(target, scenario, round, context));
          } catch (error) {
            // A dead target shows up as a /proc read failing or autocannon errors: name the real cause.
            await assertAlive(during);
            throw error;
          }
          await assertAlive(during);
        }
      }
      if (config.oneClientRequests === 0) continue;
      for (const scenario of scenarios) {
        process.stderr.write(`round ${round}: ${scenario.name}, one client, the targets in turn …\n`);
        oneClient.push(...(await measureOneClient(order, scenario, round, config.oneClientRequests)));
        await assertAlive(`round ${round}, ${scenario.name}, one client`);
      }
    }
  } catch (error) {
    fatal = error instanceof Error ? error.message : String(error);
  } finally {
    // The gateway drains and writes its profile on SIGTERM; give it time before SIGKILL.
    await cleanup(30_000);
  }

  let profile: { path: string; summaries: Map<ScenarioName, ProfileSummary> } | null = null;
  const file =
    config.profile && existsSync(profileDir)
      ? readdirSync(profileDir, { withFileTypes: true }).find((entry) => entry.name.endsWith(".cpuprofile"))
      : undefined;
  if (config.profile && !file) fatal ??= `no .cpuprofile written to ${profileDir}`;
  if (file) {
    const path = join(profileDir, file.name);
    const summaries = new Map<ScenarioName, ProfileSummary>();
    for (const scenario of scenarios) {
      const windows = measurements
        .filter((m) => m.target === "gateway" && m.scenario === scenario.name)
        .map((m) => m.window);
      summaries.set(scenario.name, summariseProfile(path, windows));
    }
    profile = { path: join("bench/.out/profiles", file.name), summaries };
  }

  const report = renderReport(
    {
      startedAt,
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? "unknown CPU",
      clockTicks,
      config,
      startRssMb,
      peers,
      revision: code,
    },
    measurements,
    oneClient,
    profile,
    fatal,
  );
  writeFileSync(join(outDir, "latest.md"), report);
  process.stdout.write(`${report}\nWritten to bench/.out/latest.md\n`);
  const failed = failures(measurements, oneClient);
  if (failed > 0) process.stderr.write(`${failed} request(s) failed (non-2xx or errors)\n`);
  if (fatal) process.stderr.write(`bench failed: ${fatal}\n`);
  return failed > 0 || fatal ? 1 : 0;
}

// Interrupted: main's own cleanup would never run, because the exit below cuts it short.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stderr.write(`${signal}: stopping children\n`);
    cleanup(5_000).finally(() => process.exit(130));
  });
}

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
    await cleanup(5_000);
    process.exit(1);
  },
);
