import { cpus } from "node:os";
import { renderProfile } from "../src/profile-report.ts";
import type { ProfileSummary } from "../src/profile-summary.ts";
import { type App, capturing, eventsPerRound, promptBytes, rounds, selected } from "./consumer-settings.ts";
import type { Measurement } from "./drain-round.ts";
import { median, table } from "./report-tables.ts";
import { steadyReport } from "./steady-report.ts";
import type { SteadyMeasurement } from "./steady-round.ts";

/** Segments against one object per call, from the medians of the same run: how many times less of each. */
function layoutComparison(measurements: Measurement[]): string[] {
  const med = (app: App, pick: (m: Measurement) => number) => {
    const of = measurements.filter((m) => m.app === app);
    return of.length ? median(of.map(pick)) : Number.NaN;
  };
  const cpu = med("capture-writer-per-call", (m) => m.cpuUs) / med("capture-writer", (m) => m.cpuUs);
  const puts =
    med("capture-writer-per-call", (m) => m.putsPerEvent ?? Number.NaN) /
    med("capture-writer", (m) => m.putsPerEvent ?? Number.NaN);
  if (!Number.isFinite(cpu)) return [];
  return [
    `Capture writer, segments against one object per call (medians of this run): ${cpu.toFixed(1)}x less CPU per captured call, ${puts.toFixed(0)}x fewer S3 PUTs.`,
    "",
  ];
}

export function report(
  measurements: Measurement[],
  steady: SteadyMeasurement[],
  startedAt: Date,
  loadAverages: number[],
  fatal: string | null,
): string {
  const out = [
    `# Consumers alone: CPU and drain time per call event (\`pnpm bench:consumers\`)`,
    "",
    `${startedAt.toISOString()}, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()}; ` +
      `${rounds} round(s)` +
      (promptBytes > 0 ? `, prompts of ${promptBytes} bytes cut from the repository's text` : "") +
      ". Engines on the same machine, shared with whatever else runs there: load average " +
      `${loadAverages.map((l) => l.toFixed(2)).join(" → ")} (1 min, at the start and at the end).`,
    "",
  ];
  if (measurements.length > 0) out.push(...drainReport(measurements));
  out.push(...steadyReport(steady));
  const profiles = new Map<string, ProfileSummary>();
  for (const m of measurements) if (m.profile) profiles.set(`${m.app}, round ${m.round}`, m.profile);
  if (profiles.size > 0)
    out.push(
      renderProfile("Consumer CPU profiles (drain and tail)", "bench/.out/consumers/profiles", profiles),
      "",
    );
  if (fatal) out.push(`**The run failed:** ${fatal}`, "");
  return out.join("\n");
}

/** The backlog drains: per round, by kind of thread, and the medians. */
function drainReport(measurements: Measurement[]): string[] {
  const f0 = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : "n/a");
  const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "n/a");
  return [
    `## Backlog drained: ${eventsPerRound} events per round and consumer`,
    "",
    table(
      [
        "round",
        "consumer",
        "events",
        "drain s",
        "events/s",
        "CPU µs/event",
        "consumer CPU % (drain)",
        "PostgreSQL µs/event",
        "Kafka µs/event",
        "S3 µs/event",
        "Redis µs/event",
        "other CPU %",
        "peak RSS MB",
        "paused s",
        "publisher CPU µs/event",
      ],
      measurements.map((m) => [
        m.round,
        m.app,
        m.events,
        f1(m.drainS),
        f0(m.events / m.drainS),
        f0(m.cpuUs),
        f0(m.cpuPct),
        f0(m.engineUs.postgres),
        f0(m.engineUs.kafka),
        f0(m.engineUs.s3),
        f0(m.engineUs.redis),
        f0(m.otherPct),
        f0(m.peakRssMb),
        f1(m.pausedS),
        f0(m.publishCpuUs),
      ]),
    ),
    "",
    "Consumer CPU per event by kind of thread:",
    "",
    table(
      ["round", "consumer", "main thread µs", "V8 helpers (GC, compiler) µs", "libuv pool µs", "other µs"],
      measurements.map((m) => [
        m.round,
        m.app,
        f0(m.cpuUsByThread.main + m.cpuUsByThread.worker),
        f0(m.cpuUsByThread.v8),
        f0(m.cpuUsByThread.libuv),
        f0(m.cpuUsByThread.other),
      ]),
    ),
    "",
    "Medians over the rounds:",
    "",
    table(
      [
        "consumer",
        "events/s",
        "CPU µs/event",
        "consumer CPU % (drain)",
        "PostgreSQL µs/event",
        "Kafka µs/event",
        "S3 µs/event",
        "Redis µs/event",
        "event bytes (Kafka)",
        "capture bytes (S3)",
        "S3 PUTs/event",
        "PostgreSQL bytes/event",
        "publisher CPU µs/event",
      ],
      selected.map((app) => {
        const of = measurements.filter((m) => m.app === app);
        const med = (pick: (m: Measurement) => number) => (of.length ? median(of.map(pick)) : Number.NaN);
        return [
          app,
          f0(med((m) => m.events / m.drainS)),
          f0(med((m) => m.cpuUs)),
          f0(med((m) => m.cpuPct)),
          f0(med((m) => m.engineUs.postgres)),
          f0(med((m) => m.engineUs.kafka)),
          f0(med((m) => m.engineUs.s3)),
          f0(med((m) => m.engineUs.redis)),
          f0(med((m) => m.eventBytes)),
          capturing(app) ? f0(med((m) => m.objectBytes ?? Number.NaN)) : "-",
          capturing(app) ? med((m) => m.putsPerEvent ?? Number.NaN).toFixed(4) : "-",
          f0(med((m) => m.tableBytes)),
          f0(med((m) => m.publishCpuUs)),
        ];
      }),
    ),
    "",
    ...layoutComparison(measurements),
  ];
}
