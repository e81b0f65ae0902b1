/** Renders the measurements as markdown: figures, ratios to the proxy, machine share, verdict. */
import { type BenchConfig, pinnedCores } from "./config.ts";
import type { ScenarioName } from "./load.ts";
import type { Measurement, TargetName } from "./measure.ts";
import { blockRequests, type OneClientMeasurement } from "./one-client.ts";
import { type ThreadKind, threadKinds } from "./proc-stats.ts";
import type { ProfileSummary, Share } from "./profile-summary.ts";

/**
 * Issue 37's targets, each on the median over the rounds, against the minimal proxy of the same
 * run: the split deployment's gateway process, and the all-in-one process (which also writes every
 * capture and prices every call on the same cores). `p99` is the ratio at the run's connections
 * (the issue asks it at 32 and 128: run with `BENCH_CONNECTIONS` set to each).
 */
const goals = {
  split: { rps: 0.9, cpuPerRequest: 1.2, p99: 2, addedMs: 0.1, addedFirstByteMs: 0.2, memory: 1.3 },
  standalone: {
    rps: 0.6,
    cpuPerRequest: 1.8,
    p99: 3,
    addedMs: 0.15,
    idleRssMb: 150,
    peakRssMb: 300,
    timesPortkey: 8,
  },
} as const;

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

/** A target's figures over the proxy's of the same round and scenario. */
interface Ratio {
  round: number;
  scenario: ScenarioName;
  target: TargetName;
  rps: number;
  p50: number;
  p99: number;
  cpuPerRequest: number;
  memory: number;
}

function ratios(measurements: Measurement[]): Ratio[] {
  const out: Ratio[] = [];
  for (const measured of measurements.filter((m) => m.target !== "proxy")) {
    const proxy = measurements.find(
      (m) => m.target === "proxy" && m.round === measured.round && m.scenario === measured.scenario,
    );
    if (!proxy) continue;
    out.push({
      round: measured.round,
      scenario: measured.scenario,
      target: measured.target,
      rps: measured.rps / proxy.rps,
      p50: measured.p50Ms / proxy.p50Ms,
      p99: measured.p99Ms / proxy.p99Ms,
      cpuPerRequest: measured.cpuUsPerRequest / proxy.cpuUsPerRequest,
      memory: measured.peakMb / proxy.peakMb,
    });
  }
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Per scenario and target, the median of each ratio over the rounds (round shown as "median"). */
function medians(all: Ratio[]): (Omit<Ratio, "round"> & { round: string })[] {
  const pairs = new Map(all.map((r) => [`${r.scenario} ${r.target}`, r]));
  return [...pairs.values()].map(({ scenario, target }) => {
    const rows = all.filter((r) => r.scenario === scenario && r.target === target);
    const of = (pick: (r: Ratio) => number) => median(rows.map(pick));
    return {
      round: "median",
      scenario,
      target,
      rps: of((r) => r.rps),
      p50: of((r) => r.p50),
      p99: of((r) => r.p99),
      cpuPerRequest: of((r) => r.cpuPerRequest),
      memory: of((r) => r.memory),
    };
  });
}

/** The one-client figures beside the proxy's of the same round and scenario: what the target adds. */
function added(oneClient: OneClientMeasurement[]) {
  return oneClient
    .filter((m) => m.target !== "proxy")
    .flatMap((m) => {
      const proxy = oneClient.find(
        (p) => p.target === "proxy" && p.round === m.round && p.scenario === m.scenario,
      );
      return proxy
        ? [
            {
              ...m,
              addedMs: m.p50Ms - proxy.p50Ms,
              addedFirstByteMs: m.firstByteP50Ms - proxy.firstByteP50Ms,
            },
          ]
        : [];
    });
}

const mark = (pass: boolean) => (pass ? "PASS" : "FAIL");

/** One line per target of issue 37, for the gateway, on the medians over the rounds. */
function verdictLines(
  info: RunInfo,
  all: Ratio[],
  oneClient: OneClientMeasurement[],
  measurements: Measurement[],
) {
  const split = info.config.gateway === "split";
  const goal = split ? goals.split : goals.standalone;
  const gateway = all.filter((r) => r.target === "gateway");
  const gatewayAdded = added(oneClient).filter((m) => m.target === "gateway");
  const lines: string[] = [];
  for (const scenario of [...new Set(gateway.map((r) => r.scenario))]) {
    const of = (pick: (r: Ratio) => number) =>
      median(gateway.filter((r) => r.scenario === scenario).map(pick));
    const rps = of((r) => r.rps);
    const cpu = of((r) => r.cpuPerRequest);
    const p99 = of((r) => r.p99);
    lines.push(
      `- ${scenario}: RPS ${times(rps)} the proxy's (target >= ${goal.rps}x): **${mark(rps >= goal.rps)}**; ` +
        `CPU per request ${times(cpu)} (target <= ${goal.cpuPerRequest}x): **${mark(cpu <= goal.cpuPerRequest)}**; ` +
        `p99 at ${info.config.connections} connections ${times(p99)} (target <= ${goal.p99}x): **${mark(p99 <= goal.p99)}**`,
    );
    const mine = gatewayAdded.filter((m) => m.scenario === scenario);
    if (mine.length === 0) continue;
    const addedMs = median(mine.map((m) => m.addedMs));
    let line = `- ${scenario}, one client: +${fixed(addedMs, 2)} ms p50 (target <= +${goal.addedMs} ms): **${mark(addedMs <= goal.addedMs)}**`;
    if (split && scenario === "sse") {
      const first = median(mine.map((m) => m.addedFirstByteMs));
      line += `; first frame +${fixed(first, 2)} ms p50 (target <= +${goals.split.addedFirstByteMs} ms): **${mark(first <= goals.split.addedFirstByteMs)}**`;
    }
    lines.push(line);
  }
  if (!split) lines.push(...portkeyLines(measurements));
  if (split) {
    const memory = median(gateway.map((r) => r.memory));
    lines.push(
      `- peak memory ${times(memory)} the proxy's (target <= ${goals.split.memory}x): **${mark(memory <= goals.split.memory)}**`,
    );
  } else {
    const idle = info.startRssMb.get("gateway") ?? Number.NaN;
    const peak = Math.max(...measurements.filter((m) => m.target === "gateway").map((m) => m.peakMb));
    lines.push(
      `- resident memory after start ${fixed(idle, 0)} MB (target <= ${goals.standalone.idleRssMb} MB): ` +
        `**${mark(idle <= goals.standalone.idleRssMb)}**; peak ${fixed(peak, 0)} MB (target <= ` +
        `${goals.standalone.peakRssMb} MB): **${mark(peak <= goals.standalone.peakRssMb)}**`,
    );
  }
  return lines;
}

/**
 * With Portkey in the run (`BENCH_PEERS=portkey`): the all-in-one's throughput over Portkey's in
 * the same rounds, and what the target asks of it in the proxy's terms, since Portkey's own share
 * of the proxy's throughput is what makes the target reachable or not.
 */
function portkeyLines(measurements: Measurement[]): string[] {
  const goal = goals.standalone.timesPortkey;
  const scenarios = [...new Set(measurements.filter((m) => m.target === "portkey").map((m) => m.scenario))];
  return scenarios.map((scenario) => {
    const rounds = measurements.filter((m) => m.scenario === scenario && m.target === "portkey");
    const rpsOf = (target: TargetName, round: number) =>
      measurements.find((m) => m.scenario === scenario && m.target === target && m.round === round)?.rps ??
      Number.NaN;
    const overPortkey = median(rounds.map((p) => rpsOf("gateway", p.round) / p.rps));
    const portkeyOverProxy = median(rounds.map((p) => p.rps / rpsOf("proxy", p.round)));
    return (
      `- ${scenario}: throughput ${times(overPortkey)} Portkey's (target >= ${goal}x): ` +
      `**${mark(overPortkey >= goal)}**; Portkey ran at ${times(portkeyOverProxy)} the proxy's, so the ` +
      `target asks ${times(goal * portkeyOverProxy)} the proxy's`
    );
  });
}

export function failures(measurements: Measurement[], oneClient: OneClientMeasurement[]): number {
  const load = measurements.reduce((sum, m) => sum + m.non2xx + m.errors + m.warmupFailures, 0);
  return oneClient.reduce((sum, m) => sum + m.failures, load);
}

function table(head: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
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

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
const times = (value: number) => `${fixed(value, 2)}x`;

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

function shareRows(shares: Share[]): (string | number)[][] {
  return shares.map((s) => [s.name, fixed(s.ms, 0), fixed(s.pct, 1)]);
}

/** One section per profiled window set (a scenario; a consumer in `pnpm bench:consumers`). */
export function renderProfile(title: string, path: string, summaries: Map<string, ProfileSummary>): string {
  const parts = [`## ${title}`, "", `Profile: \`${path}\`.`];
  for (const [scenario, summary] of summaries) {
    parts.push(
      "",
      `### ${scenario}: ${fixed(summary.busyMs, 0)} ms busy, ${fixed(summary.idleMs, 0)} ms idle` +
        (summary.windowed ? " (measured windows and their tails)" : " (whole profile: windows not found)"),
      "",
      "Top self time by function:",
      "",
      table(
        ["function", "area", "self ms", "% busy"],
        summary.functions.map((f) => [`\`${f.name}\``, f.area, fixed(f.ms, 0), fixed(f.pct, 1)]),
      ),
      "",
      "Self time by code area (wasm is counted to the package that called into it):",
      "",
      table(["area", "self ms", "% busy"], shareRows(summary.areasSelf)),
      "",
      "Time with a frame of the area anywhere on the stack (node core and native frames, under nearly " +
        "everything, left out):",
      "",
      table(["area", "on-stack ms", "% busy"], shareRows(summary.areasOnStack)),
      "",
      "Time by owner: the nearest `apps/*` frame above the sample, else the nearest `packages/*` frame:",
      "",
      table(["owner", "ms", "% busy"], shareRows(summary.owners)),
    );
  }
  return parts.join("\n");
}
