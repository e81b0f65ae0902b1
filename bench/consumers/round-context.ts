import { setTimeout as sleep } from "node:timers/promises";
import type { PgDb } from "@gateway/db";
import type { Engine, SplitDeployment } from "../src/split-gateway.ts";

/** What every round of `pnpm bench:consumers` measures with: the run's deployment and its readings. */
export interface RoundContext {
  deployment: SplitDeployment;
  db: PgDb;
  clockTicks: number;
  enginePids: Map<Engine, number | null>;
  /** Scratch space of the run (answers spilled while building events, publishers' spools). */
  workDir: string;
  /** With BENCH_PROFILE: where each consumer writes its CPU profile; null without. */
  profileDir: string | null;
}

/** Resolves once the consumer's `/readyz` answers 200: it holds partitions of its topic. */
export async function untilReady(probeUrl: string, timeoutMs: number): Promise<void> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const res = await fetch(`${probeUrl}/readyz`).catch(() => null);
    await res?.body?.cancel();
    if (res?.ok) return;
    await sleep(200);
  }
  throw new Error(`not ready (holding partitions) after ${timeoutMs} ms`);
}

export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
