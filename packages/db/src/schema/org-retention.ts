import { integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * How many days an org's data is kept, when it differs from the defaults (`retentionDefaults`):
 * one row per org that set any; a null column is "the default". Read by the retention jobs of the
 * costing worker (call rows, rollups) and the capture writer (captures).
 */
export const orgRetention = pgTable("org_retention", {
  orgId: text("org_id").primaryKey(),
  callsDays: integer("calls_days"),
  capturesDays: integer("captures_days"),
  rollupsDays: integer("rollups_days"),
  updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});
