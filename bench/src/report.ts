/** Renders the measurements as markdown: figures, ratios to the proxy, machine share, verdict. */
import { type BenchConfig, pinnedCores } from "./config.ts";
import type { ScenarioName } from "./load.ts";
import { fixed, table, times } from "./markdown.ts";
import type { Measurement, TargetName } from "./measure.ts";
import { blockRequests, type OneClientMeasurement } from "./one-client.ts";
import { type ThreadKind, threadKinds } from "./proc-stats.ts";
import { renderProfile } from "./profile-report.ts";
import type { ProfileSummary } from "./profile-summary.ts";
import { added, medians, ratios } from "./ratios.ts";
import { verdictLines } from "./verdict.ts";

export interface RunInfo {
  startedAt: Date;
  node: string;
  cpus: number;
  cpuModel: string;
  clockTicks: number;
  config: BenchConfig;
  /** Git revision of the code measured. */
  revision: string;
  /** Resident memory of each target once started, before any load. */
  startRssMb: ReadonlyMap<TargetName, number>;
  /** Each peer measured, with its version: "portkey 1.15.2". */
  peers: string[];
}

export function failures(measurements: Measurement[], oneClient: OneClientMeasurement[]): number {
  const load = measurements.reduce((sum, m) => sum + m.non2xx + m.errors + m.warmupFailures, 0);
  return oneClient.reduce((sum, m) => sum + m.failures, load);
}

/** A table with a row per measurement, led by its round, scenario and target. */
function measurementTable(
  measurements: Measurement[],
  head: string[],
  cells: (m: Measurement) => (string | number)[],
): string {
  return table(
    ["round", "scenario", "target", ...head],
    measurements.map((m) => [m.round, m.scenario, m.target, ...cells(m)]),
  );
}

export function renderReport(
  info: RunInfo,
  measurements: Measurement[],
  oneClient: OneClientMeasurement[],
  profile: { path: string; summaries: Map<ScenarioName, ProfileSummary> } | null,
  /** Why the run stopped early, if it did. */
  fatal: string | null = null,
): string {
  const { config } = info;
  const all = ratios(measurements);
  const addedByTarget = added(oneClient);
  const quietWait =
    config.quietWaitS > 0 ? `the run waits up to ${config.quietWaitS} s for it` : "not waited for";
  const sections = [
    "# Gateway vs minimal undici proxy",
    "",
    `Run ${info.startedAt.toISOString()} at ${info.revision}, on ${info.cpus} × ${info.cpuModel}, ` +
      `node ${info.node}. ` +
      `Load: autocannon in the bench process, ${config.connections} connections, ` +
      `${config.warmupS} s warm-up + ${config.durationS} s measured per target and scenario, ` +
      `${config.rounds} round(s), the first target rotating each round. ` +
      (config.stop === "drain"
        ? "Each phase ends after a request count sized to last the duration, so no response is cut off. "
        : "Each phase ends at the duration, closing connections mid-response. ") +
      `Upstream: testkit mock provider B, ${config.upstreamIds === "fresh" ? "every answer with ids of its own (as a provider's)" : "the same ids for the same request (BENCH_UPSTREAM_IDS=repeated)"}. ` +
      (config.promptBytes > 0
        ? `Prompt: ${config.promptBytes} bytes of the repository's own source and docs (BENCH_PROMPT_BYTES), up to 32 prompts that share no text, sent in turn. `
        : 'Prompt: "hello". ') +
      (config.gateway === "split"
        ? "Gateway: `apps/gateway` of the split deployment on Kafka and Redis, capture on (default " +
          "workload, sample rate 1: every event carries both bodies); its capture writer and costing " +
          "worker are not running, the events wait in Kafka. The engines run on this machine: their " +
          "CPU is in the 'other' column. " +
          (config.route
            ? "**Routed** (BENCH_ROUTE): the workload routes 30 % to a catalog model on the same mock, " +
              (config.route === "conversations"
                ? "each request names one of 1,000 conversations (`x-gateway-conversation`) in turn. "
                : "no request names a conversation (each is drawn on its own). ")
            : "")
        : "Gateway: standalone app, fresh data dir, capture on (default workload, sample rate 1): " +
          "every capture and call row is written by the same process. ") +
      (info.peers.length > 0
        ? `Peers, each in front of the same mock and driven with the same requests: ${info.peers.join(", ")}. `
        : "") +
      (config.pin
        ? `**Pinned** (BENCH_PIN): each measured target on core ${pinnedCores.target} (all its threads, ` +
          `\`taskset\`), the load generator and the mock on core ${pinnedCores.load}; other processes ` +
          "on the machine are not pinned. "
        : "Unpinned: everything shares the same cores. ") +
      "Resident memory after start, before load: " +
      `${[...info.startRssMb].map(([target, mb]) => `${target} ${fixed(mb, 0)} MB`).join(", ")}.`,
    ...(profile
      ? ["", "**Profiled run** (`--cpu-prof` on the gateway): its figures are lowered by the profiler."]
      : []),
    ...(fatal ? ["", "## Run failed", "", "```", fatal, "```", "", "What was measured before:"] : []),
    "",
    "## Figures",
    "",
    measurementTable(
      measurements,
      ["requests", "s", "RPS", "p50 ms", "p99 ms", "CPU µs/req", "peak RSS MB", "non-2xx", "errors"],
      (m) => [
        m.requests,
        fixed(m.durationS, 1),
        fixed(m.rps, 0),
        fixed(m.p50Ms, 0),
        fixed(m.p99Ms, 0),
        fixed(m.cpuUsPerRequest, 0),
        fixed(m.peakMb, 1),
        m.non2xx,
        m.warmupFailures > 0 ? `${m.errors} (+${m.warmupFailures} failed in warm-up)` : m.errors,
      ],
    ),
    "",
    "## Each target as a ratio of the minimal proxy",
    "",
    table(
      ["round", "scenario", "target", "RPS", "p50", "p99", "CPU/req", "peak memory"],
      [...all, ...(config.rounds > 1 ? medians(all) : [])].map((r) => [
        r.round,
        r.scenario,
        r.target,
        times(r.rps),
        times(r.p50),
        times(r.p99),
        times(r.cpuPerRequest),
        times(r.memory),
      ]),
    ),
    "",
    "## Where the machine went while the load ran",
    "",
    `Share of one core (the machine has ${info.cpus * 100} %). "Other" is every other process on ` +
      'the machine, noise this run cannot control; "started quiet" says whether that was under 25 % ' +
      `before the warm-up began (${quietWait}). "Tail" is how long the target kept working after the ` +
      "load stopped; that work is included in its CPU/req.",
    "",
    measurementTable(
      measurements,
      ["target CPU %", "mock CPU %", "load generator CPU %", "other CPU %", "started quiet", "tail s"],
      (m) => [
        fixed(m.targetCpuPct, 0),
        fixed(m.mockCpuPct, 0),
        fixed(m.loadGeneratorCpuPct, 0),
        fixed(m.otherCpuPct, 0),
        m.startedQuiet ? "yes" : "no",
        fixed(m.tailS, 1),
      ],
    ),
    "",
    "## CPU per request by thread",
    "",
    "Where each target's CPU per request (previous tables) went, by the kind of thread that spent " +
      "it: the main thread serves traffic (and, in the gateway, runs the capture writer's and " +
      "costing worker's JavaScript, and the embedded SQLite store's statements); worker threads are " +
      "those a library starts (the gateway starts none); " +
      "V8's helpers collect garbage and compile; libuv's pool does the file operations. LiteLLM, a " +
      "Python process, has its threads under 'other'.",
    "",
    measurementTable(
      measurements,
      Object.values(threadKinds).map((k) => `${k} µs`),
      (m) => Object.keys(threadKinds).map((k) => fixed(m.cpuUsPerRequestByThread[k as ThreadKind], 0)),
    ),
    "",
    ...(oneClient.length > 0
      ? [
          "",
          "## One client",
          "",
          `After each round's load: one connection per target, one request at a time, ${info.config.oneClientRequests} ` +
            `requests after 100 discarded, the targets taking turns in blocks of ${blockRequests}, timed by the bench (ms, to ` +
            "the microsecond). First byte: the " +
            "body's first byte (an SSE stream's first frame). Added: the target's p50 less the proxy's " +
            "of the same round.",
          "",
          table(
            [
              "round",
              "scenario",
              "target",
              "p50 ms",
              "p99 ms",
              "first byte p50 ms",
              "added p50 ms",
              "added first byte ms",
              "failed",
            ],
            oneClient.map((m) => {
              // the proxy's own rows have nothing added
              const extra = addedByTarget.find(
                (a) => a.round === m.round && a.scenario === m.scenario && a.target === m.target,
              );
              return [
                m.round,
                m.scenario,
                m.target,
                fixed(m.p50Ms, 3),
                fixed(m.p99Ms, 3),
                fixed(m.firstByteP50Ms, 3),
                extra ? fixed(extra.addedMs, 3) : "",
                extra ? fixed(extra.addedFirstByteMs, 3) : "",
                m.failures,
              ];
            }),
          ),
        ]
      : []),
    "",
    "## Verdict",
    "",
    `Against issue 37's targets for ${config.gateway === "split" ? "the split deployment's gateway process" : "the all-in-one process"} (medians over the rounds):`,
    "",
    ...verdictLines(info, all, oneClient, measurements),
    `- failed requests (non-2xx, errors or answers without the mock's, warm-up included): ${failures(measurements, oneClient)}`,
  ];
  if (profile) sections.push("", renderProfile("Gateway CPU profile", profile.path, profile.summaries));
  return `${sections.join("\n")}\n`;
}
