import { shareOfHundredMillion, steadyRate, steadySeconds } from "./consumer-settings.ts";
import { median, table } from "./report-tables.ts";
import { type SteadyMeasurement, type SteadyVariant, steadyVariants } from "./steady-round.ts";

/** The steady rounds: per round, the medians, and the wait against no wait. */
export function steadyReport(steady: SteadyMeasurement[]): string[] {
  if (steady.length === 0) return [];
  const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : "n/a");
  const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "n/a");
  const partitions = Number(process.env.GATEWAY_KAFKA_PARTITIONS ?? 6);
  const share = shareOfHundredMillion(steadyRate, partitions);
  const row = (
    label: string | number,
    variant: SteadyVariant,
    pick: (p: (m: SteadyMeasurement) => number) => number,
  ) => [
    label,
    variant,
    f0(pick((m) => m.rate)),
    f0(pick((m) => m.cpuUs)),
    pick((m) => m.putsPerEvent).toFixed(4),
    f0(pick((m) => 1 / m.putsPerEvent)),
    f0(pick((m) => m.engineUs.s3)),
    f0(pick((m) => m.engineUs.kafka)),
    f0(pick((m) => m.engineUs.postgres)),
    f0(pick((m) => m.listedMs.median)),
    f0(pick((m) => m.listedMs.max)),
    f1(pick((m) => m.tailS)),
  ];
  const header = [
    "round",
    "capture writer",
    "events/s",
    "CPU µs/captured call",
    "S3 PUTs/captured call",
    "captures per segment",
    "S3 µs/call",
    "Kafka µs/call",
    "PostgreSQL µs/call",
    "listed after, median ms",
    "listed after, max ms",
    "tail s",
  ];
  const variants = Object.keys(steadyVariants) as SteadyVariant[];
  const medianOf = (variant: SteadyVariant) => (pick: (m: SteadyMeasurement) => number) => {
    const of = steady.filter((m) => m.variant === variant);
    return of.length ? median(of.map(pick)) : Number.NaN;
  };
  const ratio = (pick: (m: SteadyMeasurement) => number) =>
    medianOf("no wait")(pick) / medianOf("wait")(pick);
  return [
    `## Steady state: the capture writer at ${steadyRate} events/s for ${steadySeconds} s`,
    "",
    `Over ${partitions} partitions, one capture writer holding them all: ${f0(steadyRate / partitions)} events/s per partition, ` +
      `${(share * 100).toFixed(0)} % of 100M calls a day's average per partition (1,157/s over 6). ` +
      "`wait`: the fetch settings' defaults (GATEWAY_CAPTURE_FETCH_MIN_BYTES, GATEWAY_CAPTURE_FETCH_MAX_WAIT_MS); " +
      "`no wait`: min bytes 1, a fetch returns what has arrived. CPU per captured call from the writer's idle " +
      "state before the first event to its idle state after the last; engines over the same time (Kafka's " +
      "includes the bench's producing); listed after: from an event's publishing to its index row.",
    "",
    table(
      header,
      steady.map((m) => row(m.round, m.variant, (pick) => pick(m))),
    ),
    "",
    "Medians over the rounds:",
    "",
    table(
      header,
      variants.map((variant) => row("all", variant, medianOf(variant))),
    ),
    "",
    `The wait against none (medians of this run): ${ratio((m) => m.cpuUs).toFixed(1)}x less CPU per captured call, ` +
      `${ratio((m) => m.putsPerEvent).toFixed(1)}x fewer S3 PUTs.`,
    "",
  ];
}
