import { bigint, numeric, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** What a rollup row sums over its calls (measures.ts says how each is counted). */
const measures = () => ({
  requests: bigint("requests", { mode: "number" }).notNull(),
  errors: bigint("errors", { mode: "number" }).notNull(),
  errors5xx: bigint("errors_5xx", { mode: "number" }).notNull(),
  failing: bigint("failing", { mode: "number" }).notNull(),
  timeouts: bigint("timeouts", { mode: "number" }).notNull(),
  inputTokens: bigint("input_tokens", { mode: "number" }).notNull(),
  cacheReadInputTokens: bigint("cache_read_input_tokens", { mode: "number" }).notNull(),
  cacheCreationInputTokens: bigint("cache_creation_input_tokens", { mode: "number" }).notNull(),
  outputTokens: bigint("output_tokens", { mode: "number" }).notNull(),
  pricedRequests: bigint("priced_requests", { mode: "number" }).notNull(),
  customerCostUsd: numeric("customer_cost_usd").notNull(),
});

const group = () => ({
  workloadId: text("workload_id").notNull(),
  providerLabel: text("provider_label").notNull(),
  model: text("model").notNull(),
  route: text("route").notNull(),
});

/**
 * Hourly sums of `calls`, maintained by the costing worker in the same transaction as the call
 * insert (only rows actually inserted add to them) and by pricing in the same transaction as the
 * call update (cost deltas). Reports read whole hours from here, the whole minutes of the edge
 * hours from `call_rollups_minutely` and the partial edge minutes from `calls`, so they stay exact
 * and fast. `model` is the served model, '' when none is known.
 */
export const callRollupsHourly = pgTable(
  "call_rollups_hourly",
  {
    projectId: text("project_id").notNull(),
    hour: timestamp("hour", { withTimezone: true, mode: "date" }).notNull(),
    ...group(),
    ...measures(),
  },
  (t) => [
    primaryKey({
      name: "call_rollups_hourly_pk",
      columns: [t.projectId, t.hour, t.workloadId, t.providerLabel, t.model, t.route],
    }),
  ],
);

/**
 * The same sums by UTC minute, kept as long as the call rows (retention's `callsDays`): a report's
 * edge hours read from here, so a window reads at most two partial minutes of raw calls (at 100M
 * calls a day an edge hour is 4.2M rows, a minute 69k). Written, priced and pruned with the
 * hourly rollups.
 */
export const callRollupsMinutely = pgTable(
  "call_rollups_minutely",
  {
    projectId: text("project_id").notNull(),
    minute: timestamp("minute", { withTimezone: true, mode: "date" }).notNull(),
    ...group(),
    ...measures(),
  },
  (t) => [
    primaryKey({
      name: "call_rollups_minutely_pk",
      columns: [t.projectId, t.minute, t.workloadId, t.providerLabel, t.model, t.route],
    }),
  ],
);
