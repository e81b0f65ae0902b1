import type { Engine } from "../src/split-gateway.ts";

/** `pnpm bench:consumers`' settings (see consumer-cost.ts) and the consumers it measures. */
const apps = ["capture-writer", "capture-writer-per-call", "costing-worker"] as const;
export type App = (typeof apps)[number];
export const capturing = (app: App) => app !== "costing-worker";
/** The process each consumer runs: the app, and for the per-call layout the bench's own entry. */
export const processOf = (app: App) =>
  app === "capture-writer-per-call"
    ? { app: "capture-writer", entry: "bench/consumers/per-call-capture-writer.ts" }
    : { app, entry: undefined };
export const engines: Engine[] = ["postgres", "kafka", "s3", "redis"];

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}

export const promptBytes = positiveInt("BENCH_PROMPT_BYTES", 0);
// (the events of a round are held in memory, and must reach the broker while the consumer is paused)
export const eventsPerRound = positiveInt("BENCH_CONSUMER_EVENTS", promptBytes > 0 ? 1000 : 8000);
export const rounds = positiveInt("BENCH_ROUNDS", 3);
export const selected = (process.env.BENCH_CONSUMERS ?? apps.join(","))
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean) as App[];
for (const app of selected) if (!apps.includes(app)) throw new Error(`BENCH_CONSUMERS: unknown ${app}`);

const modes = ["drain", "steady"] as const;
export type Mode = (typeof modes)[number];
export const selectedModes = (process.env.BENCH_MODE ?? modes.join(","))
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean) as Mode[];
for (const mode of selectedModes) if (!modes.includes(mode)) throw new Error(`BENCH_MODE: unknown ${mode}`);

/**
 * Steady state: 100M calls a day is 1,157/s on average, over the topic's 6 partitions (the
 * default) ~193/s each; the default rate is that average into one capture writer holding all 6.
 */
export const steadyRate = positiveInt("BENCH_STEADY_RATE", 1157);
export const steadySeconds = positiveInt("BENCH_STEADY_S", 30);
/** Distinct events built for a steady round; each is sent with a fresh request id (fresh-request-ids.ts). */
export const steadyPool = 2000;
/** The share of 100M calls a day over 6 partitions that one partition at `rate` / `partitions` stands for. */
export const shareOfHundredMillion = (rate: number, partitions: number) =>
  rate / partitions / (100e6 / 86_400 / 6);
