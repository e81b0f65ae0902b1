/** One measured window: wait for quiet, warm up, settle, load, settle, reading /proc around the load. */

import type { Result } from "autocannon";
import type { BenchConfig, PeerName } from "./config.ts";
import { type LoadOptions, runLoad, type Scenario, type ScenarioName } from "./load.ts";
import {
  cpuTicks,
  cpuTicksByThread,
  machineBusyTicks,
  memory,
  settle,
  type ThreadKind,
  waitForQuiet,
} from "./proc-stats.ts";
import type { Window } from "./profile-summary.ts";

export type TargetName = "proxy" | "gateway" | PeerName;

export interface Target {
  name: TargetName;
  pid: number;
  baseUrl: string;
  bearer: string;
  /** Request headers of its own (a peer's routing), beside the bearer. */
  headers?: Record<string, string>;
  /** BENCH_ROUTE: the next request's conversation (`x-gateway-conversation`), cycling. */
  nextConversation?: () => string;
}

export interface Measurement {
  round: number;
  scenario: ScenarioName;
  target: TargetName;
  requests: number;
  durationS: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Target CPU from the start of the window until its deferred work settled, per request. */
  cpuUsPerRequest: number;
  /** The same, split by the kind of thread that spent it. */
  cpuUsPerRequestByThread: Record<ThreadKind, number>;
  /** Share of one core each process used while the load ran (2 cores = 200 %). */
  targetCpuPct: number;
  mockCpuPct: number;
  loadGeneratorCpuPct: number;
  /** Everything else on the machine: other people's processes, the kernel on their behalf. */
  otherCpuPct: number;
  /** Whether the machine was quiet before the warm-up began (false: gave up waiting, or not asked). */
  startedQuiet: boolean;
  /** Time the target kept working after the load stopped (capture, events). */
  tailS: number;
  /** VmHWM after the window: the process's peak so far, not this window's alone. */
  peakMb: number;
  non2xx: number;
  errors: number;
  /** Failures during the discarded warm-up (non-2xx, errors, answers without the mock's), which fail the run all the same. */
  warmupFailures: number;
  /** Monotonic µs, to cut the gateway's CPU profile to the measured windows. */
  window: Window;
}

export interface MeasureContext {
  config: BenchConfig;
  clockTicks: number;
  mockPid: number;
}

/**
 * Discarded load until the warm-up time has passed. In "drain" mode it runs in batches of about a
 * second each, so that no batch ends mid-response and the last one gives the current rate.
 */
async function warmUp(
  load: (until: LoadOptions["until"]) => Promise<Result>,
  config: BenchConfig,
): Promise<{ rps: number; failures: number }> {
  if (config.stop === "abort") {
    const result = await load({ durationS: config.warmupS });
    return {
      rps: result.requests.total / result.duration,
      failures: result.non2xx + result.errors + result.mismatches,
    };
  }
  const started = performance.now();
  let amount = config.connections * 10;
  let rps = 0;
  let failures = 0;
  do {
    const result = await load({ amount });
    rps = result.requests.total / result.duration;
    failures += result.non2xx + result.errors + result.mismatches;
    amount = Math.max(config.connections * 10, Math.round(rps));
  } while (performance.now() - started < config.warmupS * 1000);
  return { rps, failures };
}

/** "Quiet": the rest of the machine uses less than this share of one core. */
const quietMaxPct = 25;

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

interface Phase {
  result: Result;
  targetTicks: number;
  targetTicksByThread: Record<ThreadKind, number>;
  targetTicksLoaded: number;
  mockTicks: number;
  machineTicks: number;
  selfSeconds: number;
  tailMs: number;
  startUs: number;
  endUs: number;
}

/** One load phase with the counters read around it, including the target's tail of deferred work. */
async function measurePhase(
  load: () => Promise<Result>,
  pid: number,
  mockPid: number,
  settleMaxMs: number,
): Promise<Phase> {
  const startUs = monotonicUs();
  const targetBefore = cpuTicks(pid);
  const threadsBefore = cpuTicksByThread(pid);
  const mockBefore = cpuTicks(mockPid);
  const machineBefore = machineBusyTicks();
  const selfBefore = process.cpuUsage();
  const result = await load();
  const targetLoaded = cpuTicks(pid);
  const mockTicks = cpuTicks(mockPid) - mockBefore;
  const machineTicks = machineBusyTicks() - machineBefore;
  const self = process.cpuUsage(selfBefore);
  const tailMs = await settle(pid, settleMaxMs);
  const threadsAfter = cpuTicksByThread(pid);
  return {
    result,
    targetTicks: cpuTicks(pid) - targetBefore,
    targetTicksByThread: Object.fromEntries(
      Object.entries(threadsAfter).map(([kind, ticks]) => [kind, ticks - threadsBefore[kind as ThreadKind]]),
    ) as Record<ThreadKind, number>,
    targetTicksLoaded: targetLoaded - targetBefore,
    mockTicks,
    machineTicks,
    selfSeconds: (self.user + self.system) / 1e6,
    tailMs,
    startUs,
    endUs: monotonicUs(),
  };
}

export async function measure(
  target: Target,
  scenario: Scenario,
  round: number,
  { config, clockTicks, mockPid }: MeasureContext,
): Promise<Measurement> {
  const load = (until: LoadOptions["until"], checkAnswers = false) =>
    runLoad({
      baseUrl: target.baseUrl,
      bearer: target.bearer,
      headers: target.headers,
      nextConversation: target.nextConversation,
      scenario,
      connections: config.connections,
      until,
      checkAnswers,
    });
  const settleMaxMs = config.settleMaxS * 1000;

  const quiet =
    config.quietWaitS > 0
      ? await waitForQuiet(clockTicks, quietMaxPct, config.quietWaitS * 1000)
      : { waitedMs: 0, quiet: false };
  // Only the warm-up checks each answer, so the measured window carries no parsing of the bench's own.
  const warmup = await warmUp((until) => load(until, true), config);
  await settle(target.pid, settleMaxMs);
  let { rps, failures } = warmup;
  let measured: Phase;
  for (let attempt = 1; ; attempt++) {
    const until: LoadOptions["until"] =
      config.stop === "abort"
        ? { durationS: config.durationS }
        : { amount: Math.round(rps * config.durationS) };
    measured = await measurePhase(() => load(until), target.pid, mockPid, settleMaxMs);
    // A request count sized from the warm-up can undershoot badly when the rate has since risen:
    // treat a much shorter window as more warm-up and size the next one from it.
    if (config.stop === "abort" || measured.result.duration >= 0.75 * config.durationS || attempt === 3)
      break;
    rps = measured.result.requests.total / measured.result.duration;
    failures += measured.result.non2xx + measured.result.errors;
  }

  const { result } = measured;
  const pctOfCore = (ticks: number) => (100 * ticks) / clockTicks / result.duration;
  const requests = result.requests.total;
  const usPerRequest = (ticks: number) => (requests > 0 ? (ticks / clockTicks / requests) * 1e6 : Number.NaN);
  const targetPct = pctOfCore(measured.targetTicksLoaded);
  const mockPct = pctOfCore(measured.mockTicks);
  const loadGeneratorPct = (100 * measured.selfSeconds) / result.duration;
  return {
    round,
    scenario: scenario.name,
    target: target.name,
    requests,
    durationS: result.duration,
    rps: requests / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    cpuUsPerRequest: usPerRequest(measured.targetTicks),
    cpuUsPerRequestByThread: Object.fromEntries(
      Object.entries(measured.targetTicksByThread).map(([kind, ticks]) => [kind, usPerRequest(ticks)]),
    ) as Record<ThreadKind, number>,
    targetCpuPct: targetPct,
    mockCpuPct: mockPct,
    loadGeneratorCpuPct: loadGeneratorPct,
    otherCpuPct: Math.max(0, pctOfCore(measured.machineTicks) - targetPct - mockPct - loadGeneratorPct),
    startedQuiet: quiet.quiet,
    // settle() needs two quiet 250 ms intervals to call it done; those are not work.
    tailS: Math.max(0, measured.tailMs - 500) / 1000,
    peakMb: memory(target.pid).peakKb / 1024,
    non2xx: result.non2xx,
    errors: result.errors,
    warmupFailures: failures,
    window: [measured.startUs, measured.endUs],
  };
}
