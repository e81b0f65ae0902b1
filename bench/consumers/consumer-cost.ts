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
 * Steady state (BENCH_MODE=steady): per round, the capture writer with its fetch wait and
 * without it, each fed `BENCH_STEADY_RATE` events a second for `BENCH_STEADY_S` seconds while it
 * runs (steady-round.ts): CPU and S3 PUTs per captured call, and how long a capture waited.
 *
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
 *   BENCH_MODE             comma-separated subset of drain,steady (default both): `drain` is the
 *                          backlog above; `steady` (steady-round.ts) runs the capture writer while
 *                          events arrive at a fixed rate, with its fetch wait and without it
 *   BENCH_STEADY_RATE      steady: events a second (default 1157: 100M calls a day's average, over
 *                          the topic's 6 partitions ~193/s each)
 *   BENCH_STEADY_S         steady: seconds of traffic per round (default 30)
 *
 * Prints a markdown report and writes it to bench/.out/consumers/latest.md. The run's database is
 * dropped at the end; its Kafka topics (`bench-<run>-…`) expire with the broker's retention, and
 * its capture objects stay under the S3 prefix `bench-<run>/`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type DbHandle, openDb, type PgDb } from "@gateway/db";
import { appEnv } from "../src/app-command.ts";
import { stopChildren } from "../src/children.ts";
import { repoPrompts } from "../src/load.ts";
import { clockTicksPerSecond } from "../src/proc-stats.ts";
import { type SplitDeployment, startSplitDeployment } from "../src/split-gateway.ts";
import { report } from "./consumer-report.ts";
import { engines, promptBytes, rounds, selected, selectedModes } from "./consumer-settings.ts";
import { type Measurement, measureDrain } from "./drain-round.ts";
import type { RoundContext } from "./round-context.ts";
import { measureSteady, type SteadyMeasurement, type SteadyVariant, steadyVariants } from "./steady-round.ts";

const benchDir = resolve(import.meta.dirname, "..");
const rootDir = resolve(benchDir, "..");
const outDir = join(benchDir, ".out", "consumers");
const workDir = mkdtempSync(join(tmpdir(), "gateway-bench-consumers-"));
const profileDir = join(outDir, "profiles");
const profiling = process.env.BENCH_PROFILE === "1" || process.env.BENCH_PROFILE === "true";
const prompts = promptBytes > 0 ? repoPrompts(promptBytes, rootDir) : [];

async function main(): Promise<number> {
  mkdirSync(outDir, { recursive: true });
  if (profiling) rmSync(profileDir, { recursive: true, force: true });
  const startedAt = new Date();
  const clockTicks = clockTicksPerSecond();
  const loadAtStart = loadavg()[0]!;
  const measurements: Measurement[] = [];
  const steady: SteadyMeasurement[] = [];
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
    const context: RoundContext = {
      deployment,
      db: handle.db,
      clockTicks,
      enginePids,
      workDir,
      profileDir: profiling ? profileDir : null,
    };
    const variants = Object.keys(steadyVariants) as SteadyVariant[];
    for (let round = 1; round <= rounds; round++) {
      // the consumers, and the steady variants, alternate which goes first
      const flip = <T>(items: T[]) => (round % 2 === 1 ? items : [...items].reverse());
      for (const app of selectedModes.includes("drain") ? flip(selected) : []) {
        process.stderr.write(`round ${round}: ${app} …\n`);
        const m = await measureDrain(context, app, round, prompts);
        process.stderr.write(
          `  ${m.events} events drained in ${m.drainS.toFixed(1)} s, ${m.cpuUs.toFixed(0)} µs CPU per event\n`,
        );
        measurements.push(m);
      }
      for (const variant of selectedModes.includes("steady") ? flip(variants) : []) {
        process.stderr.write(`round ${round}: capture-writer at a steady rate, ${variant} …\n`);
        const m = await measureSteady(context, variant, round, prompts);
        process.stderr.write(
          `  ${m.events} events at ${m.rate.toFixed(0)}/s: ${m.cpuUs.toFixed(0)} µs CPU and ${m.putsPerEvent.toFixed(4)} PUTs per captured call\n`,
        );
        steady.push(m);
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
  const text = report(measurements, steady, startedAt, [loadAtStart, loadavg()[0]!], fatal);
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
