import { bigint, index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * One row per stored capture. The capture is `size` bytes of the blob store's object `key` from
 * byte `offset` (a segment holding a batch's captures); a NULL offset is the whole object (the
 * layout of one object per call, before segments). On PostgreSQL partitioned by UTC day of
 * `received_at`, like `calls`.
 */
export const captureIndex = pgTable(
  "capture_index",
  {
    requestId: text("request_id").notNull(),
    orgId: text("org_id").notNull(),
    projectId: text("project_id").notNull(),
    workloadId: text("workload_id").notNull(),
    apiKeyId: text("api_key_id").notNull(),
    key: text("key").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    offset: bigint("offset", { mode: "number" }),
    uploadedAt: timestamp("uploaded_at", { withTimezone: true, mode: "date" }).notNull(),
    /**
     * When the gateway received the call (its event's `received_at`): the partition key and the
     * time retention measures a capture's age by. Not `uploaded_at`, which a redelivered batch
     * writes anew: the key (request_id, received_at) still dedupes a redelivery.
     */
    receivedAt: timestamp("received_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    primaryKey({ name: "capture_index_pk", columns: [t.requestId, t.receivedAt] }),
    // Listings page newest first by (uploaded_at, request_id) within a project or a workload.
    index("capture_index_project_idx").on(t.projectId, t.uploadedAt, t.requestId),
    index("capture_index_workload_idx").on(t.projectId, t.workloadId, t.uploadedAt, t.requestId),
    // Retention deletes an object once no row names it (a segment is named by many rows).
    index("capture_index_key_idx").on(t.key),
  ],
);
