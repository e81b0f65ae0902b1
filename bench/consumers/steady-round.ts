import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { callsTopic, silentLogger } from "@gateway/contracts";
import { captureIndex } from "@gateway/db";
import { kafkaEnv } from "@gateway/engines";
import { openKafkaBus } from "@gateway/engines/kafka";
import { parseEnvWith } from "@gateway/runtime";
import { gte } from "drizzle-orm";
import { z } from "zod";
import { assertAlive, stopChild } from "../src/children.ts";
import { cpuTicksByThread, settle, type ThreadKind } from "../src/proc-stats.ts";
import { type Engine, urlOf } from "../src/split-gateway.ts";
import { buildCallEvents } from "./call-events.ts";
import { engines, steadyPool, steadyRate, steadySeconds } from "./consumer-settings.ts";
import { done, objectCount } from "./consumer-tables.ts";
import { engineTicks } from "./engine-cpu.ts";
import { withFreshRequestId } from "./fresh-request-ids.ts";
import { type RoundContext, untilReady } from "./round-context.ts";

/** The capture writer with its fetch wait (its default settings), and without it (min bytes 1). */
export const steadyVariants = {
  wait: {},
  "no wait": { GATEWAY_CAPTURE_FETCH_MIN_BYTES: "1" },
} satisfies Record<string, Record<string, string>>;
export type SteadyVariant = keyof typeof steadyVariants;

/** One steady round of the capture writer: what a captured call cost it, and how long it waited. */
export interface SteadyMeasurement {
  variant: SteadyVariant;
  round: number;
  events: number;
  /** Events per second as published (the target is `steadyRate`). */
  rate: number;
  /** Consumer CPU per captured call, from idle before the first event to idle after the last. */
  cpuUs: number;
  /** Each engine's CPU per captured call over the same time (its producer's side included for Kafka). */
  engineUs: Record<Engine, number>;
  putsPerEvent: number;
  /** From a capture's publishing to its index row (`uploaded_at`): median and longest, ms. */
  listedMs: { median: number; max: number };
  /** From the last event's publishing until every capture was listed, s. */
  tailS: number;
}

/**
 * The capture writer at a steady rate: `steadyRate` events a second for `steadySeconds`, each
 * published when it is due (the gateway's own producer, as the gateways send them), while the
 * writer runs; then until every capture is listed, and the writer idle again.
 */
export async function measureSteady(
  { deployment, db, clockTicks, enginePids, workDir }: RoundContext,
  variant: SteadyVariant,
  round: number,
  prompts: readonly string[],
): Promise<SteadyMeasurement> {
  const prefix = `bench-${deployment.run}-r${round}-steady-${variant.replace(" ", "-")}.`;
  const total = steadyRate * steadySeconds;
  const pool = buildCallEvents(
    deployment.org,
    Math.min(total, steadyPool),
    { spillBytes: 1 << 20, maxBytes: 32 << 20, spillDir: join(workDir, "answers") },
    prompts,
  );
  const child = await deployment.start("capture-writer", {
    env: { GATEWAY_KAFKA_NAME_PREFIX: prefix, ...steadyVariants[variant] },
    ready: (lines) => lines.some((l) => l.includes('"message":"consuming"')),
  });
  try {
    await untilReady(urlOf(child.lines), 30_000);
    await settle(child.pid, 30_000);
    const before = await done(db, "capture-writer");
    const objectsBefore = await objectCount(db, "capture-writer");
    const settings = parseEnvWith(z.object(kafkaEnv), {
      ...deployment.env,
      GATEWAY_KAFKA_NAME_PREFIX: prefix,
      GATEWAY_SPOOL_DIR: join(workDir, `publisher-steady-${round}-${variant}`),
    });
    const bus = await openKafkaBus(settings, silentLogger, "bench-publisher");
    const startedAt = new Date();
    const cpu0 = cpuTicksByThread(child.pid);
    const engines0 = engineTicks(enginePids);
    const publishedAt = new Map<string, number>();
    const started = performance.now();
    let published = 0;
    while (published < total) {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * steadyRate));
      for (; published < due; published++) {
        const { requestId, frame } = pool[published % pool.length]!;
        const fresh = withFreshRequestId(frame, requestId);
        publishedAt.set(fresh.requestId, Date.now());
        bus.publish(callsTopic, fresh.requestId, fresh.frame);
      }
      await sleep(5);
    }
    await bus.flush();
    const publishS = (performance.now() - started) / 1000;
    const lastPublished = performance.now();
    await bus.close();
    for (;;) {
      if ((await done(db, "capture-writer")) >= before + total) break;
      await assertAlive(`capture-writer (steady, ${variant}), round ${round}`);
      if (performance.now() - lastPublished > 120_000)
        throw new Error("the captures were not listed within 120 s");
      await sleep(100);
    }
    const tailS = (performance.now() - lastPublished) / 1000;
    await settle(child.pid, 60_000);
    const cpu1 = cpuTicksByThread(child.pid);
    const engines1 = engineTicks(enginePids);
    const perEvent = (ticks: number) => ((ticks / clockTicks) * 1e6) / total;
    const sum = (t: Record<ThreadKind, number>) => Object.values(t).reduce((a, b) => a + b, 0);
    const engineUs = {} as Record<Engine, number>;
    for (const engine of engines) engineUs[engine] = perEvent(engines1[engine] - engines0[engine]);
    const rows = await db
      .select({ requestId: captureIndex.requestId, uploadedAt: captureIndex.uploadedAt })
      .from(captureIndex)
      .where(gte(captureIndex.uploadedAt, startedAt));
    const listed = rows
      .filter((row) => publishedAt.has(row.requestId))
      .map((row) => row.uploadedAt.getTime() - publishedAt.get(row.requestId)!)
      .sort((a, b) => a - b);
    return {
      variant,
      round,
      events: total,
      rate: total / publishS,
      cpuUs: perEvent(sum(cpu1) - sum(cpu0)),
      engineUs,
      putsPerEvent: ((await objectCount(db, "capture-writer")) - objectsBefore) / total,
      listedMs: {
        median: listed[Math.floor(listed.length / 2)] ?? Number.NaN,
        max: listed.at(-1) ?? Number.NaN,
      },
      tailS,
    };
  } finally {
    await stopChild(child, 15_000);
  }
}
