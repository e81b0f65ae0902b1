import { bigint, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** The latencies a call has: its total time, and its time to first byte when one came. */
export const latencyMeasures = ["total", "first_byte"] as const;
export type LatencyMeasure = (typeof latencyMeasures)[number];

/**
 * Hourly latency histograms of `calls`, kept beside `call_rollups_hourly` and filled in the same
 * transaction from the same inserted rows. Each row counts the calls of one hour, workload and
 * served model ('' when none) whose latency, in whole milliseconds truncated to two significant
 * digits, is `bucket_ms` (exact below 100 ms). Percentiles over any window are then read from a
 * few rows per hour instead of every call, and the same on both stores (integer buckets, no float).
 */
export const callLatencyHourly = pgTable(
  "call_latency_hourly",
  {
    projectId: text("project_id").notNull(),
    hour: timestamp("hour", { withTimezone: true, mode: "date" }).notNull(),
    workloadId: text("workload_id").notNull(),
    model: text("model").notNull(),
    measure: text("measure", { enum: latencyMeasures }).notNull(),
    bucketMs: bigint("bucket_ms", { mode: "number" }).notNull(),
    calls: bigint("calls", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({
      name: "call_latency_hourly_pk",
      columns: [t.projectId, t.hour, t.workloadId, t.model, t.measure, t.bucketMs],
    }),
  ],
);
