import { armSources, pricingStatuses, unpricedReasons } from "@gateway/contracts";
import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";

/**
 * One row per gateway request, written by the costing worker from `gateway.calls.v1`. On
 * PostgreSQL a table partitioned by UTC day of `received_at` (`calls_pYYYYMMDD`), so retention
 * drops whole days (src/retention/).
 */
export const calls = pgTable(
  "calls",
  {
    requestId: text("request_id").notNull(),
    orgId: text("org_id").notNull(),
    projectId: text("project_id").notNull(),
    workloadId: text("workload_id").notNull(),
    apiKeyId: text("api_key_id").notNull(),
    receivedAt: timestamp("received_at", { withTimezone: true, mode: "date" }).notNull(),
    endpoint: text("endpoint").notNull(),
    providerLabel: text("provider_label").notNull(),
    mode: text("mode").notNull(),
    route: text("route").notNull(),
    requestedModel: text("requested_model"),
    servedModel: text("served_model"),
    stream: boolean("stream").notNull(),
    status: integer("status").notNull(),
    firstByteMs: doublePrecision("first_byte_ms"),
    totalMs: doublePrecision("total_ms").notNull(),
    streamOutcome: text("stream_outcome").notNull(),
    errorType: text("error_type"),
    /** The limit that refused the call (`<scope>.<limit>`, e.g. `project.budget`); null otherwise. */
    refusedBy: text("refused_by"),
    /** Why a routed call fell back to the original model (`timeout` or `error`); null otherwise. */
    fallbackReason: text("fallback_reason"),
    /** How the workload's route chose the arm: `affinity` (the conversation's) or `draw`; null when no route applied. */
    armSource: text("arm_source", { enum: armSources }),
    upstreamRequestId: text("upstream_request_id"),
    upstreamResponseId: text("upstream_response_id"),
    tags: jsonb("tags").$type<Record<string, string>>().notNull(),
    usageRaw: jsonb("usage_raw").$type<Record<string, unknown>>(),
    inputTokens: bigint("input_tokens", { mode: "number" }),
    cacheReadInputTokens: bigint("cache_read_input_tokens", { mode: "number" }),
    cacheCreationInputTokens: bigint("cache_creation_input_tokens", { mode: "number" }),
    cacheCreation5mInputTokens: bigint("cache_creation_5m_input_tokens", { mode: "number" }),
    cacheCreation1hInputTokens: bigint("cache_creation_1h_input_tokens", { mode: "number" }),
    outputTokens: bigint("output_tokens", { mode: "number" }),
    pricingStatus: text("pricing_status", { enum: pricingStatuses }).notNull().default("unpriced"),
    unpricedReason: text("unpriced_reason", { enum: unpricedReasons }),
    /** The price row (version) a priced call used. */
    priceId: text("price_id"),
    pricedAt: timestamp("priced_at", { withTimezone: true, mode: "date" }),
    /** When a later costing run changed an already costed call's price (a re-pricing); null if none did. */
    repricedAt: timestamp("repriced_at", { withTimezone: true, mode: "date" }),
    /** The price row the call had before its latest re-pricing; null when it had none (it was `no_price`). */
    repricedFromPriceId: text("repriced_from_price_id"),
    uncachedInputUsd: numeric("uncached_input_usd"),
    cacheWriteUsd: numeric("cache_write_usd"),
    cacheReadUsd: numeric("cache_read_usd"),
    outputUsd: numeric("output_usd"),
    customerCostUsd: numeric("customer_cost_usd"),
  },
  (t) => [
    // Partitioned by day on received_at (migration 0006), so the key holds it; a redelivered
    // event carries the same received_at, so the key still dedupes by request id.
    primaryKey({ name: "calls_pk", columns: [t.requestId, t.receivedAt] }),
    index("calls_project_time_idx").on(t.projectId, t.receivedAt),
    // The call log's filters that hold many rows each: one range per workload and per served model.
    index("calls_project_workload_time_idx").on(t.projectId, t.workloadId, t.receivedAt),
    index("calls_project_model_time_idx").on(t.projectId, t.servedModel, t.receivedAt),
    index("calls_org_upstream_request_idx").on(t.orgId, t.upstreamRequestId),
    index("calls_org_upstream_response_idx").on(t.orgId, t.upstreamResponseId),
    // Reports list example ids and last failure times from the few problem calls only.
    index("calls_project_problem_idx")
      .on(t.projectId, t.receivedAt)
      .where(
        sql`${t.status} >= 400 or ${t.streamOutcome} in ('truncated', 'upstream_error') or ${t.route} = 'fallback'`,
      ),
    // The limits-status report counts a project's refused calls from these few rows only, and
    // from the index alone: it carries what the count groups by (a day's ~500k refusals at 100M
    // calls a day: 1.1 s read through the table, 0.12 s from the index, bench/RESULTS.md).
    index("calls_project_refused_idx")
      .on(t.projectId, t.receivedAt, t.refusedBy, t.workloadId, t.apiKeyId)
      .where(sql`${t.refusedBy} is not null`),
    // The start-up sweep finds calls whose pricing job was lost.
    index("calls_pricing_pending_idx").on(t.receivedAt).where(sql`${t.unpricedReason} = 'pricing_pending'`),
  ],
);
