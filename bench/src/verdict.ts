/** The verdict: each of issue 37's targets for the process measured, on the medians over the rounds. */
import type { BenchConfig } from "./config.ts";
import { fixed, times } from "./markdown.ts";
import type { Measurement, TargetName } from "./measure.ts";
import type { OneClientMeasurement } from "./one-client.ts";
import { added, median, type Ratio } from "./ratios.ts";

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

const mark = (pass: boolean) => (pass ? "PASS" : "FAIL");

/** One line per target of issue 37, for the gateway, on the medians over the rounds. */
export function verdictLines(
  info: { config: BenchConfig; startRssMb: ReadonlyMap<TargetName, number> },
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
