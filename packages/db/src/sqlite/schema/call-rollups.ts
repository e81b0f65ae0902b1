import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { instant, picoUsd } from "./columns.ts";

/** Twins of `src/schema/call-rollups.ts`; the cost in pico-dollars. */

const measures = () => ({
  requests: integer("requests").notNull(),
  errors: integer("errors").notNull(),
  errors5xx: integer("errors_5xx").notNull(),
  failing: integer("failing").notNull(),
  timeouts: integer("timeouts").notNull(),
  inputTokens: integer("input_tokens").notNull(),
  cacheReadInputTokens: integer("cache_read_input_tokens").notNull(),
  cacheCreationInputTokens: integer("cache_creation_input_tokens").notNull(),
  outputTokens: integer("output_tokens").notNull(),
  pricedRequests: integer("priced_requests").notNull(),
  customerCostUsd: picoUsd("customer_cost_usd").notNull(),
});

const group = () => ({
  workloadId: text("workload_id").notNull(),
  providerLabel: text("provider_label").notNull(),
  model: text("model").notNull(),
  route: text("route").notNull(),
});

export const callRollupsHourly = sqliteTable(
  "call_rollups_hourly",
  { projectId: text("project_id").notNull(), hour: instant("hour").notNull(), ...group(), ...measures() },
  (t) => [
    primaryKey({
      name: "call_rollups_hourly_pk",
      columns: [t.projectId, t.hour, t.workloadId, t.providerLabel, t.model, t.route],
    }),
  ],
);

export const callRollupsMinutely = sqliteTable(
  "call_rollups_minutely",
  { projectId: text("project_id").notNull(), minute: instant("minute").notNull(), ...group(), ...measures() },
  (t) => [
    primaryKey({
      name: "call_rollups_minutely_pk",
      columns: [t.projectId, t.minute, t.workloadId, t.providerLabel, t.model, t.route],
    }),
  ],
);
