import { bigint, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** One row per stored capture object; the object itself lives in the blob store at `key`. */
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
    uploadedAt: timestamp("uploaded_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [
    // Listings page newest first by (uploaded_at, request_id) within a project or a workload.
    index("capture_index_project_idx").on(t.projectId, t.uploadedAt, t.requestId),
    index("capture_index_workload_idx").on(t.projectId, t.workloadId, t.uploadedAt, t.requestId),
  ],
);
