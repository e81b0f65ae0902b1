import { bigint, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * One row per stored capture. The capture is `size` bytes of the blob store's object `key` from
 * byte `offset` (a segment holding a batch's captures); a NULL offset is the whole object (the
 * layout of one object per call, before segments).
 */
export const captureIndex = pgTable(
  "capture_index",
  {
    requestId: text("request_id").primaryKey(),
    orgId: text("org_id").notNull(),
    projectId: text("project_id").notNull(),
    workloadId: text("workload_id").notNull(),
    apiKeyId: text("api_key_id").notNull(),
    key: text("key").notNull(),
    size: bigint("size", { mode: "number" }).notNull(),
    offset: bigint("offset", { mode: "number" }),
    uploadedAt: timestamp("uploaded_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    // Listings page newest first by (uploaded_at, request_id) within a project or a workload.
    index("capture_index_project_idx").on(t.projectId, t.uploadedAt, t.requestId),
    index("capture_index_workload_idx").on(t.projectId, t.workloadId, t.uploadedAt, t.requestId),
  ],
);
