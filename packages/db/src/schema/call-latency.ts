import { bigint, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** The latencies a call has: its total time, and its time to first byte when one came. */
export const latencyMeasures = ["total", "first_byte"] as const;
export type LatencyMeasure = (typeof latencyMeasures)[number];

/** The periods the histograms are kept over, in hours: the overview's slices of a day, a week, 30 days. */
export const latencySpans = [1, 6, 24] as const;

/**
 * Latency histograms of `calls` over periods of 1, 6 and 24 hours (aligned on the epoch, UTC),
 * kept beside `call_rollups_hourly` and filled in the same transaction from the same inserted
 * rows. Each row counts the calls of one period, workload and served model ('' when none) whose
 * latency, in whole milliseconds rounded down to the E12 series (see `latencyBucket`), is
 * `bucket_ms`. Percentiles over a window are then read from a few rows per slice instead of every
 * call, and the same on both stores (integer buckets, no float).
 */
export const callLatencyHourly = pgTable(
  "call_latency_hourly",
  {
    projectId: text("project_id").notNull(),
    spanHours: integer("span_hours").notNull(),
    startsAt: timestamp("starts_at", { withTimezone: true, mode: "date" }).notNull(),
    workloadId: text("workload_id").notNull(),
    model: text("model").notNull(),
    measure: text("measure", { enum: latencyMeasures }).notNull(),
    bucketMs: bigint("bucket_ms", { mode: "number" }).notNull(),
    calls: bigint("calls", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({
      name: "call_latency_hourly_pk",
      columns: [t.projectId, t.spanHours, t.startsAt, t.workloadId, t.model, t.measure, t.bucketMs],
    }),
  ],
);
