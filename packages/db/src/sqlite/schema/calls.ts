import { armSources, limitScopes, pricingStatuses, unpricedReasons } from "@gateway/contracts";
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { latencyMeasures } from "../../schema/call-latency.ts";
import { flag, instant, picoUsd } from "./columns.ts";

/**
 * The tables the costing worker and the capture writer fill, on SQLite: twins of
 * `src/schema/{calls,capture-index,limits}.ts`. Money is pico-dollars. `calls` and
 * `capture_index` are keyed by `request_id` alone here (PostgreSQL adds `received_at`, its
 * partitions' column): SQLite's planner looks a request id up by its key only when the key is the
 * id alone; with both columns it walked the project's time index instead.
 */

export const calls = sqliteTable(
  "calls",
  {
    requestId: text("request_id").primaryKey(),
    orgId: text("org_id").notNull(),
    projectId: text("project_id").notNull(),
    workloadId: text("workload_id").notNull(),
    apiKeyId: text("api_key_id").notNull(),
    receivedAt: instant("received_at").notNull(),
    endpoint: text("endpoint").notNull(),
    providerLabel: text("provider_label").notNull(),
    mode: text("mode").notNull(),
    route: text("route").notNull(),
    requestedModel: text("requested_model"),
    servedModel: text("served_model"),
    stream: flag("stream").notNull(),
    status: integer("status").notNull(),
    firstByteMs: real("first_byte_ms"),
    totalMs: real("total_ms").notNull(),
    streamOutcome: text("stream_outcome").notNull(),
    errorType: text("error_type"),
    refusedBy: text("refused_by"),
    fallbackReason: text("fallback_reason"),
    armSource: text("arm_source", { enum: armSources }),
    upstreamRequestId: text("upstream_request_id"),
    upstreamResponseId: text("upstream_response_id"),
    tags: text("tags", { mode: "json" }).$type<Record<string, string>>().notNull(),
    usageRaw: text("usage_raw", { mode: "json" }).$type<Record<string, unknown>>(),
    inputTokens: integer("input_tokens"),
    cacheReadInputTokens: integer("cache_read_input_tokens"),
    cacheCreationInputTokens: integer("cache_creation_input_tokens"),
    cacheCreation5mInputTokens: integer("cache_creation_5m_input_tokens"),
    cacheCreation1hInputTokens: integer("cache_creation_1h_input_tokens"),
    outputTokens: integer("output_tokens"),
    pricingStatus: text("pricing_status", { enum: pricingStatuses }).notNull().default("unpriced"),
    unpricedReason: text("unpriced_reason", { enum: unpricedReasons }),
    priceId: text("price_id"),
    pricedAt: instant("priced_at"),
    repricedAt: instant("repriced_at"),
    repricedFromPriceId: text("repriced_from_price_id"),
    uncachedInputUsd: picoUsd("uncached_input_usd"),
    cacheWriteUsd: picoUsd("cache_write_usd"),
    cacheReadUsd: picoUsd("cache_read_usd"),
    outputUsd: picoUsd("output_usd"),
    customerCostUsd: picoUsd("customer_cost_usd"),
  },
  (t) => [
    index("calls_project_time_idx").on(t.projectId, t.receivedAt),
    index("calls_project_workload_time_idx").on(t.projectId, t.workloadId, t.receivedAt),
    index("calls_project_model_time_idx").on(t.projectId, t.servedModel, t.receivedAt),
    // No index on the upstream ids here: the migration keeps them in `calls_upstream_ids`, an FTS5
    // table a batch's inserts fill (`sqlite/upstream-ids.ts`) and triggers keep current on deletes
    // and changes (docs/decisions.md, "Upstream ids on SQLite").
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
    index("calls_pricing_pending_idx").on(t.receivedAt).where(sql`${t.unpricedReason} = 'pricing_pending'`),
  ],
);

export const callLatencyHourly = sqliteTable(
  "call_latency_hourly",
  {
    projectId: text("project_id").notNull(),
    spanHours: integer("span_hours").notNull(),
    startsAt: instant("starts_at").notNull(),
    workloadId: text("workload_id").notNull(),
    model: text("model").notNull(),
    measure: text("measure", { enum: latencyMeasures }).notNull(),
    bucketMs: integer("bucket_ms").notNull(),
    calls: integer("calls").notNull(),
  },
  (t) => [
    primaryKey({
      name: "call_latency_hourly_pk",
      columns: [t.projectId, t.spanHours, t.startsAt, t.workloadId, t.model, t.measure, t.bucketMs],
    }),
  ],
);

export const captureIndex = sqliteTable(
  "capture_index",
  {
    requestId: text("request_id").primaryKey(),
    orgId: text("org_id").notNull(),
    projectId: text("project_id").notNull(),
    workloadId: text("workload_id").notNull(),
    apiKeyId: text("api_key_id").notNull(),
    key: text("key").notNull(),
    size: integer("size").notNull(),
    offset: integer("offset"),
    uploadedAt: instant("uploaded_at").notNull(),
    receivedAt: instant("received_at").notNull(),
  },
  (t) => [
    index("capture_index_project_idx").on(t.projectId, t.uploadedAt, t.requestId),
    index("capture_index_workload_idx").on(t.projectId, t.workloadId, t.uploadedAt, t.requestId),
    index("capture_index_key_idx").on(t.key),
  ],
);

/** `day` is the UTC date as `YYYY-MM-DD` text, as PostgreSQL's `date` reads. */
export const spendDaily = sqliteTable(
  "spend_daily",
  {
    scope: text("scope", { enum: limitScopes }).notNull(),
    scopeId: text("scope_id").notNull(),
    day: text("day").notNull(),
    mode: text("mode").notNull(),
    customerCostUsd: picoUsd("customer_cost_usd").notNull(),
  },
  (t) => [primaryKey({ name: "spend_daily_pk", columns: [t.scope, t.scopeId, t.day, t.mode] })],
);
