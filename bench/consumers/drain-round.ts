import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { callsTopic, silentLogger } from "@gateway/contracts";
import { kafkaEnv } from "@gateway/engines";
import { openKafkaBus } from "@gateway/engines/kafka";
import { parseEnvWith } from "@gateway/runtime";
import { z } from "zod";
import { assertAlive, type Child, stopChild } from "../src/children.ts";
import {
  cpuTicks,
  cpuTicksByThread,
  machineBusyTicks,
  memory,
  settle,
  type ThreadKind,
} from "../src/proc-stats.ts";
import { type ProfileSummary, summariseProfile } from "../src/profile-summary.ts";
import { type Engine, urlOf } from "../src/split-gateway.ts";
import { buildCallEvents } from "./call-events.ts";
import { type App, capturing, engines, eventsPerRound, processOf } from "./consumer-settings.ts";
import { done, objectBytesSum, objectCount, tableBytes } from "./consumer-tables.ts";
import { engineTicks } from "./engine-cpu.ts";
import { monotonicUs, type RoundContext, untilReady } from "./round-context.ts";

/** The consumer's session with its group times out after 10 s: it may not stay paused that long. */
const maxPausedS = 8;

/** One drain: per event, the consumer's CPU and its engines'; the drain's pace. */
export interface Measurement {
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

/**
 * A backlog drained: the round's events published while the consumer is paused (SIGSTOP), then
 * the consumer resumed and timed until every one is done (consumer-cost.ts, steps 1-5).
 */
export async function measureDrain(
  { deployment, db, clockTicks, enginePids, workDir, profileDir }: RoundContext,
  app: App,
  round: number,
  prompts: readonly string[],
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
    nodeFlags: profileDir
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
      profile: profileDir ? summariseProfile(join(profileDir, profileName), [[startUs, endUs]]) : null,
    };
  } finally {
    await stopChild(child, 15_000);
  }
}
