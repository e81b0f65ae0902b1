import { sql } from "drizzle-orm";
import { boolean, doublePrecision, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { catalogModels } from "./catalog.ts";
import { projects } from "./projects.ts";

export const workloads = pgTable(
  "workloads",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    name: text("name").notNull(),
    isDefault: boolean("is_default").notNull().default(false),
    // New workloads capture everything.
    captureEnabled: boolean("capture_enabled").notNull().default(true),
    captureSampleRate: doublePrecision("capture_sample_rate").notNull().default(1),
    routeModelId: text("route_model_id").references(() => catalogModels.id),
    routeTrafficPct: doublePrecision("route_traffic_pct").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("workloads_project_name_uq").on(t.projectId, t.name),
    uniqueIndex("workloads_project_default_uq").on(t.projectId).where(sql`${t.isDefault}`),
  ],
);
