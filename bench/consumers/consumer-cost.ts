/**
 * `pnpm bench:consumers`: what the split deployment's consumers cost per call, each measured
 * alone against the engines started by `infra/*.sh` (PostgreSQL, Redis, Kafka, MinIO).
 *
 * One deployment for the run (split-gateway.ts: a fresh database migrated and seeded by the
 * control plane, the bench org, Redis and S3 names of the run's own). Then per round and consumer
 * (`apps/capture-writer`, `apps/costing-worker`, each started as its `start` script runs it):
 *   1. build N call events with the gateway's own builder (call-events.ts: captured, priced model,
 *      ~3 KB request and ~3-9 KB answer in the event);
 *   2. start the consumer on a Kafka topic and group of the round's own (a name prefix), wait until
 *      it holds its partitions and is idle, and pause it (SIGSTOP);
 *   3. publish the N events with the gateway's own Kafka producer (`openKafkaBus`) and flush, so
 *      the backlog is in the broker before the consumer runs: the bench's publishing does not
 *      share the cores with the drain;
 *   4. resume the consumer (SIGCONT) and poll PostgreSQL until every event is done: an index row
 *      per capture (capture writer); a call row per event and none left waiting for its pricing
 *      job (costing worker);
 *   5. wait until it is idle again, read its CPU (utime+stime of every thread, /proc/<pid>/stat),
 *      and stop it.
 * Per event: the consumer's CPU (from its idle state before the drain to its idle state after,
 * so the offset commits and pricing jobs of the last batch are in), the drain's wall time, and
 * each engine's CPU during the drain (its server process and children, for all its clients: the
 * engines are shared with whatever else runs on the machine).
 *
 * Included: the Kafka fetch and the frame read back (its JSON parsed, its bodies decoded), the event's validation, and the consumer's own work:
 * the capture writer's envelope, S3 PUT (create-only) and index row insert; the costing worker's
 * call row insert with its hourly rollups, the key's last_used_at, the BullMQ pricing job (queued
 * and run in the same process), the pricing update, the spend it publishes to Redis for budgets.
 * Not included: the gateway's side (building, serialising and producing the event: that is in the
 * gateway's CPU per request, `pnpm bench`), replication and fsync (the local engines run with one
 * replica and PostgreSQL with fsync off), network between machines (everything is on loopback).
 *
 *   BENCH_CONSUMER_EVENTS  events per round and consumer (default 8000; 1000 with BENCH_PROMPT_BYTES)
 *   BENCH_PROMPT_BYTES     each request's last user turn this long instead of ~400 bytes: a coding
 *                          agent's context, cut from the repository's own text as `pnpm bench` does
 *   BENCH_ROUNDS           rounds (default 3); the consumers alternate which goes first
 *   BENCH_CONSUMERS        comma-separated subset of capture-writer,capture-writer-per-call,costing-worker
 *                          (capture-writer-per-call: the capture writer writing one object per call,
 *                          the layout before segments, per-call-capture-writer.ts; the report sets
 *                          the two side by side: CPU and S3 PUTs per captured call)
 *   BENCH_INFRA_DIR        the engines' scripts, when not this checkout's infra/ (see split-gateway.ts)
 *   BENCH_PROFILE          1: run each consumer with --cpu-prof and add a summary of each drain (top
 *                          self time, time per code area and owner) to the report
 *
 * Prints a markdown report and writes it to bench/.out/consumers/latest.md. The run's database is
 * dropped at the end; its Kafka topics (`bench-<run>-…`) expire with the broker's retention, and
 * its capture objects stay under the S3 prefix `bench-<run>/`.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { callsTopic, silentLogger } from "@gateway/contracts";
import { calls, captureIndex, countPricingPending, type DbHandle, openDb, type PgDb } from "@gateway/db";
import { kafkaEnv } from "@gateway/engines";
import { openKafkaBus } from "@gateway/engines/kafka";
import { parseEnvWith } from "@gateway/runtime";
import { count, sql } from "drizzle-orm";
import { z } from "zod";
import { appEnv } from "../src/app-command.ts";
import { assertAlive, type Child, stopChild, stopChildren } from "../src/children.ts";
import { repoPrompts } from "../src/load.ts";
import {
  clockTicksPerSecond,
  cpuTicks,
  cpuTicksByThread,
  machineBusyTicks,
  memory,
  settle,
  type ThreadKind,
} from "../src/proc-stats.ts";
import { type ProfileSummary, summariseProfile } from "../src/profile-summary.ts";
import { renderProfile } from "../src/report.ts";
import { type Engine, type SplitDeployment, startSplitDeployment, urlOf } from "../src/split-gateway.ts";
import { buildCallEvents } from "./call-events.ts";

const benchDir = resolve(import.meta.dirname, "..");
const rootDir = resolve(benchDir, "..");
const outDir = join(benchDir, ".out", "consumers");
const workDir = mkdtempSync(join(tmpdir(), "gateway-bench-consumers-"));
const profileDir = join(outDir, "profiles");
const profiling = process.env.BENCH_PROFILE === "1" || process.env.BENCH_PROFILE === "true";
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

const apps = ["capture-writer", "capture-writer-per-call", "costing-worker"] as const;
type App = (typeof apps)[number];
const capturing = (app: App) => app !== "costing-worker";
/** The process each consumer runs: the app, and for the per-call layout the bench's own entry. */
const processOf = (app: App) =>
  app === "capture-writer-per-call"
    ? { app: "capture-writer", entry: "bench/consumers/per-call-capture-writer.ts" }
    : { app, entry: undefined };
const engines: Engine[] = ["postgres", "kafka", "s3", "redis"];

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}

const promptBytes = positiveInt("BENCH_PROMPT_BYTES", 0);
// (the events of a round are held in memory, and must reach the broker while the consumer is paused)
const eventsPerRound = positiveInt("BENCH_CONSUMER_EVENTS", promptBytes > 0 ? 1000 : 8000);
const prompts = promptBytes > 0 ? repoPrompts(promptBytes, rootDir) : [];
const rounds = positiveInt("BENCH_ROUNDS", 3);
const selected = (process.env.BENCH_CONSUMERS ?? apps.join(","))
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean) as App[];
for (const app of selected) if (!apps.includes(app)) throw new Error(`BENCH_CONSUMERS: unknown ${app}`);
/** The consumer's session with its group times out after 10 s: it may not stay paused that long. */
const maxPausedS = 8;

interface Measurement {
  app: App;
  round: number;
  events: number;
  publishS: number;
  /**
   * The bench process's CPU per event while it published (frame, journal, kafkajs encode and
   * send): the gateway's own hand-off of an event of this size, measured outside the gateway.
   */
  publishCpuUs: number;
  pausedS: number;
  drainS: number;
  /** Consumer CPU from idle before the drain to idle after it, per event. */
  cpuUs: number;
  cpuUsByThread: Record<ThreadKind, number>;
  /** The consumer's share of one core during the drain (100 = one core). */
  cpuPct: number;
  /** Each engine's CPU during the drain, per event (all its clients). */
  engineUs: Record<Engine, number>;
  /** Everything else on the machine during the drain, share of one core. */
  otherPct: number;
  peakRssMb: number;
  /** Mean event as the producer sends it (its frame: JSON and the bodies' bytes). */
  eventBytes: number;
  /** What the drain added to the consumer's tables (rows, indexes, rollups), per event. */
  tableBytes: number;
  /** Capture writer: mean capture size in S3. */
  objectBytes: number | null;
  /** Capture writer: objects written (one create-only PUT each) per captured call. */
  putsPerEvent: number | null;
  /** With BENCH_PROFILE: the consumer's profile over the drain and its tail. */
  profile: ProfileSummary | null;
}

/** utime+stime of `root` (and of its children that exited) plus every live descendant, in ticks. */
function treeTicks(root: number): number {
  const children = new Map<number, number[]>();
  const own = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(entry);
      const ppid = Number(fields[1]);
      // utime, stime, cutime, cstime are fields 14-17: indexes 11-14 after the command name
      const waited = pid === root ? Number(fields[13]) + Number(fields[14]) : 0;
      own.set(pid, Number(fields[11]) + Number(fields[12]) + waited);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      // the process ended while the list was read
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += own.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

function engineTicks(pids: Map<Engine, number | null>) {
  const ticks = {} as Record<Engine, number>;
  for (const engine of engines) {
    const pid = pids.get(engine);
    ticks[engine] = pid ? treeTicks(pid) : Number.NaN;
  }
  return ticks;
}

async function done(db: PgDb, app: App): Promise<number> {
  if (capturing(app)) {
    const [row] = await db.select({ n: count() }).from(captureIndex);
    return row?.n ?? 0;
  }
  const [row] = await db.select({ n: count() }).from(calls);
  // a call counts once its pricing job has run
  return (row?.n ?? 0) - (await countPricingPending(db));
}

async function tableBytes(db: PgDb, app: App): Promise<number> {
  const tables = capturing(app) ? ["capture_index"] : ["calls", "call_rollups_hourly", "api_keys"];
  let bytes = 0;
  for (const table of tables) {
    const rows = (await db.execute(
      sql`select pg_total_relation_size(${table}::regclass)::bigint as b`,
    )) as unknown;
    const first = (Array.isArray(rows) ? rows[0] : (rows as { rows: unknown[] }).rows[0]) as { b: string };
    bytes += Number(first.b);
  }
  return bytes;
}

async function untilReady(probeUrl: string, timeoutMs: number): Promise<void> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const res = await fetch(`${probeUrl}/readyz`).catch(() => null);
    await res?.body?.cancel();
    if (res?.ok) return;
    await sleep(200);
  }
  throw new Error(`not ready (holding partitions) after ${timeoutMs} ms`);
}

async function measure(
  deployment: SplitDeployment,
  db: PgDb,
  app: App,
  round: number,
  clockTicks: number,
  enginePids: Map<Engine, number | null>,
): Promise<Measurement> {
  const prefix = `bench-${deployment.run}-r${round}-${app}.`;
  const events = buildCallEvents(
    deployment.org,
    eventsPerRound,
    { spillBytes: 1 << 20, maxBytes: 32 << 20, spillDir: join(workDir, "answers") },
    prompts,
  );
  let eventBytes = 0;
  for (const event of events) eventBytes += event.frame.length;

  const profileName = `${app}-r${round}.cpuprofile`;
  const { app: appName, entry } = processOf(app);
  const child: Child = await deployment.start(appName, {
    ...(entry ? { entry } : {}),
    nodeFlags: profiling
      ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${profileName}`]
      : [],
    env: { GATEWAY_KAFKA_NAME_PREFIX: prefix },
    ready: (lines) => lines.some((l) => l.includes('"message":"consuming"')),
  });
  try {
    await untilReady(urlOf(child.lines), 30_000);
    await settle(child.pid, 30_000);
    const before = await done(db, app);
    const bytesBefore = await tableBytes(db, app);
    const objectBytesBefore = await objectBytesSum(db, app);
    const objectsBefore = await objectCount(db, app);

    // The gateway's own producer, configured from the same settings the consumer got.
    const settings = parseEnvWith(z.object(kafkaEnv), {
      ...deployment.env,
      GATEWAY_KAFKA_NAME_PREFIX: prefix,
      GATEWAY_SPOOL_DIR: join(workDir, `publisher-${round}-${app}`),
    });
    const bus = await openKafkaBus(settings, silentLogger, "bench-publisher");
    const cpu0 = cpuTicksByThread(child.pid);
    const paused = performance.now();
    process.kill(child.pid, "SIGSTOP");
    const publishCpu0 = process.cpuUsage();
    for (const event of events) bus.publish(callsTopic, event.requestId, event.frame);
    await bus.flush();
    const publishCpu = process.cpuUsage(publishCpu0);
    const publishS = (performance.now() - paused) / 1000;
    await bus.close();
    const pausedS = (performance.now() - paused) / 1000;
    if (pausedS > maxPausedS)
      process.stderr.write(
        `  warning: paused ${pausedS.toFixed(1)} s (publishing took ${publishS.toFixed(1)} s); the consumer may have left its group\n`,
      );

    const engines0 = engineTicks(enginePids);
    const machine0 = machineBusyTicks();
    const self0 = process.cpuUsage();
    const started = performance.now();
    const startUs = monotonicUs();
    process.kill(child.pid, "SIGCONT");
    const target = before + eventsPerRound;
    for (;;) {
      await sleep(100);
      if ((await done(db, app)) >= target) break;
      await assertAlive(`${app}, round ${round}`);
      if (performance.now() - started > 600_000) throw new Error(`${app} did not drain within 600 s`);
    }
    const drainS = (performance.now() - started) / 1000;
    const engines1 = engineTicks(enginePids);
    const machine1 = machineBusyTicks();
    const self = process.cpuUsage(self0);
    const consumerAtDrain = cpuTicks(child.pid);

    await settle(child.pid, 60_000);
    const cpu1 = cpuTicksByThread(child.pid);
    const endUs = monotonicUs();
    const peakRssMb = memory(child.pid).peakKb / 1024;
    const sum = (t: Record<ThreadKind, number>) => Object.values(t).reduce((a, b) => a + b, 0);
    const perEvent = (ticks: number) => ((ticks / clockTicks) * 1e6) / eventsPerRound;
    const cpuUsByThread = {} as Record<ThreadKind, number>;
    for (const kind of Object.keys(cpu1) as ThreadKind[])
      cpuUsByThread[kind] = perEvent(cpu1[kind] - cpu0[kind]);
    const engineUs = {} as Record<Engine, number>;
    let engineSum = 0;
    for (const engine of engines) {
      engineUs[engine] = perEvent(engines1[engine] - engines0[engine]);
      if (Number.isFinite(engineUs[engine])) engineSum += engines1[engine] - engines0[engine];
    }
    const consumerDrainTicks = consumerAtDrain - sum(cpu0);
    const pct = (ticks: number) => ((ticks / clockTicks) * 100) / drainS;
    const selfTicks = ((self.user + self.system) / 1e6) * clockTicks;
    const objects = capturing(app) ? (await objectBytesSum(db, app)) - objectBytesBefore : null;
    const puts = capturing(app) ? (await objectCount(db, app)) - objectsBefore : null;
    const tableBytesAfter = await tableBytes(db, app);
    // the profile is written as the process exits
    await stopChild(child, 15_000);
    return {
      app,
      round,
      events: eventsPerRound,
      publishS,
      publishCpuUs: (publishCpu.user + publishCpu.system) / eventsPerRound,
      pausedS,
      drainS,
      cpuUs: perEvent(sum(cpu1) - sum(cpu0)),
      cpuUsByThread,
      cpuPct: pct(consumerDrainTicks),
      engineUs,
      otherPct: Math.max(0, pct(machine1 - machine0 - consumerDrainTicks - engineSum - selfTicks)),
      peakRssMb,
      eventBytes: eventBytes / eventsPerRound,
      tableBytes: (tableBytesAfter - bytesBefore) / eventsPerRound,
      objectBytes: objects === null ? null : objects / eventsPerRound,
      putsPerEvent: puts === null ? null : puts / eventsPerRound,
      profile: profiling ? summariseProfile(join(profileDir, profileName), [[startUs, endUs]]) : null,
    };
  } finally {
    await stopChild(child, 15_000);
  }
}

/** Objects the capture writer wrote: every index row names one (a redelivery would add one not named; the bench has none). */
async function objectCount(db: PgDb, app: App): Promise<number> {
  if (!capturing(app)) return 0;
  const [row] = await db.select({ n: sql<string>`count(distinct ${captureIndex.key})` }).from(captureIndex);
  return Number(row?.n ?? 0);
}

async function objectBytesSum(db: PgDb, app: App): Promise<number> {
  if (!capturing(app)) return 0;
  const [row] = await db
    .select({ b: sql<string>`coalesce(sum(${captureIndex.size}), 0)` })
    .from(captureIndex);
  return Number(row?.b ?? 0);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** Segments against one object per call, from the medians of the same run: how many times less of each. */
function layoutComparison(measurements: Measurement[]): string[] {
  const med = (app: App, pick: (m: Measurement) => number) => {
    const of = measurements.filter((m) => m.app === app);
    return of.length ? median(of.map(pick)) : Number.NaN;
  };
  const cpu = med("capture-writer-per-call", (m) => m.cpuUs) / med("capture-writer", (m) => m.cpuUs);
  const puts =
    med("capture-writer-per-call", (m) => m.putsPerEvent ?? Number.NaN) /
    med("capture-writer", (m) => m.putsPerEvent ?? Number.NaN);
  if (!Number.isFinite(cpu)) return [];
  return [
    `Capture writer, segments against one object per call (medians of this run): ${cpu.toFixed(1)}x less CPU per captured call, ${puts.toFixed(0)}x fewer S3 PUTs.`,
    "",
  ];
}

function report(measurements: Measurement[], startedAt: Date, fatal: string | null): string {
  const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : "n/a");
  const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "n/a");
  const out = [
    `# Consumers alone: CPU and drain time per call event (\`pnpm bench:consumers\`)`,
    "",
    `${startedAt.toISOString()}, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()}; ` +
      `${eventsPerRound} events per round and consumer, ${rounds} round(s)` +
      (promptBytes > 0 ? `, prompts of ${promptBytes} bytes cut from the repository's text` : "") +
      ". Engines on the same machine, " +
      "shared with whatever else runs there.",
    "",
    table(
      [
        "round",
        "consumer",
        "events",
        "drain s",
        "events/s",
        "CPU µs/event",
        "consumer CPU % (drain)",
        "PostgreSQL µs/event",
        "Kafka µs/event",
        "S3 µs/event",
        "Redis µs/event",
        "other CPU %",
        "peak RSS MB",
        "paused s",
        "publisher CPU µs/event",
      ],
      measurements.map((m) => [
        m.round,
        m.app,
        m.events,
        f1(m.drainS),
        f0(m.events / m.drainS),
        f0(m.cpuUs),
        f0(m.cpuPct),
        f0(m.engineUs.postgres),
        f0(m.engineUs.kafka),
        f0(m.engineUs.s3),
        f0(m.engineUs.redis),
        f0(m.otherPct),
        f0(m.peakRssMb),
        f1(m.pausedS),
        f0(m.publishCpuUs),
      ]),
    ),
    "",
    "Consumer CPU per event by kind of thread:",
    "",
    table(
      ["round", "consumer", "main thread µs", "V8 helpers (GC, compiler) µs", "libuv pool µs", "other µs"],
      measurements.map((m) => [
        m.round,
        m.app,
        f0(m.cpuUsByThread.main + m.cpuUsByThread.worker),
        f0(m.cpuUsByThread.v8),
        f0(m.cpuUsByThread.libuv),
        f0(m.cpuUsByThread.other),
      ]),
    ),
    "",
    "Medians over the rounds:",
    "",
    table(
      [
        "consumer",
        "events/s",
        "CPU µs/event",
        "consumer CPU % (drain)",
        "PostgreSQL µs/event",
        "Kafka µs/event",
        "S3 µs/event",
        "Redis µs/event",
        "event bytes (Kafka)",
        "capture bytes (S3)",
        "S3 PUTs/event",
        "PostgreSQL bytes/event",
        "publisher CPU µs/event",
      ],
      selected.map((app) => {
        const of = measurements.filter((m) => m.app === app);
        const med = (pick: (m: Measurement) => number) => (of.length ? median(of.map(pick)) : Number.NaN);
        return [
          app,
          f0(med((m) => m.events / m.drainS)),
          f0(med((m) => m.cpuUs)),
          f0(med((m) => m.cpuPct)),
          f0(med((m) => m.engineUs.postgres)),
          f0(med((m) => m.engineUs.kafka)),
          f0(med((m) => m.engineUs.s3)),
          f0(med((m) => m.engineUs.redis)),
          f0(med((m) => m.eventBytes)),
          capturing(app) ? f0(med((m) => m.objectBytes ?? Number.NaN)) : "-",
          capturing(app) ? med((m) => m.putsPerEvent ?? Number.NaN).toFixed(4) : "-",
          f0(med((m) => m.tableBytes)),
          f0(med((m) => m.publishCpuUs)),
        ];
      }),
    ),
    "",
  ];
  out.push(...layoutComparison(measurements));
  const profiles = new Map<string, ProfileSummary>();
  for (const m of measurements) if (m.profile) profiles.set(`${m.app}, round ${m.round}`, m.profile);
  if (profiles.size > 0)
    out.push(
      renderProfile("Consumer CPU profiles (drain and tail)", "bench/.out/consumers/profiles", profiles),
      "",
    );
  if (fatal) out.push(`**The run failed:** ${fatal}`, "");
  return out.join("\n");
}

async function main(): Promise<number> {
  mkdirSync(outDir, { recursive: true });
  if (profiling) rmSync(profileDir, { recursive: true, force: true });
  const startedAt = new Date();
  const clockTicks = clockTicksPerSecond();
  const measurements: Measurement[] = [];
  let fatal: string | null = null;
  let deployment: SplitDeployment | null = null;
  let handle: DbHandle<PgDb> | null = null;
  try {
    deployment = await startSplitDeployment({
      rootDir,
      outDir,
      env: appEnv,
      spoolDir: join(workDir, "spool"),
      startTimeoutMs: 60_000,
    });
    const enginePids = new Map(engines.map((engine) => [engine, deployment!.engines.pid(engine)] as const));
    handle = await openDb({ kind: "postgres", url: deployment.env.GATEWAY_DATABASE_URL!, max: 2 });
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? selected : [...selected].reverse();
      for (const app of order) {
        process.stderr.write(`round ${round}: ${app} …\n`);
        const m = await measure(deployment, handle.db, app, round, clockTicks, enginePids);
        process.stderr.write(
          `  ${m.events} events drained in ${m.drainS.toFixed(1)} s, ${m.cpuUs.toFixed(0)} µs CPU per event\n`,
        );
        measurements.push(m);
      }
    }
  } catch (error) {
    fatal = error instanceof Error ? error.message : String(error);
  } finally {
    await stopChildren(15_000);
    await handle?.close();
    await deployment?.dropDatabase().catch(() => {});
    rmSync(workDir, { recursive: true, force: true });
  }
  const text = report(measurements, startedAt, fatal);
  writeFileSync(join(outDir, "latest.md"), text);
  process.stdout.write(`${text}\nWritten to bench/.out/consumers/latest.md\n`);
  if (fatal) process.stderr.write(`bench failed: ${fatal}\n`);
  return fatal ? 1 : 0;
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stderr.write(`${signal}: stopping children\n`);
    stopChildren(5_000).finally(() => {
      rmSync(workDir, { recursive: true, force: true });
      process.exit(130);
    });
  });
}

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
    await stopChildren(5_000);
    process.exit(1);
  },
);
