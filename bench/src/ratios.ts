/** Each target's figures as ratios of the minimal proxy's in the same round, and their medians. */
import type { ScenarioName } from "./load.ts";
import type { Measurement, TargetName } from "./measure.ts";
import type { OneClientMeasurement } from "./one-client.ts";

/** A target's figures over the proxy's of the same round and scenario. */
export interface Ratio {
  round: number;
  scenario: ScenarioName;
  target: TargetName;
  rps: number;
  p50: number;
  p99: number;
  cpuPerRequest: number;
  memory: number;
}

export function ratios(measurements: Measurement[]): Ratio[] {
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

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Per scenario and target, the median of each ratio over the rounds (round shown as "median"). */
export function medians(all: Ratio[]): (Omit<Ratio, "round"> & { round: string })[] {
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
export function added(oneClient: OneClientMeasurement[]) {
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
