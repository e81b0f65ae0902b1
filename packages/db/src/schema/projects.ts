import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { orgs } from "./orgs.ts";

export const projects = pgTable(
  "projects",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    isDefault: boolean("is_default").notNull().default(false),
    settings: jsonb("settings").$type<Record<string, never>>().notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    deletedAt: timestamp("deleted_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    // A slug is unique among the org's live projects only: deleting frees it for reuse.
    uniqueIndex("projects_live_slug_uq").on(t.orgId, t.slug).where(sql`${t.deletedAt} is null`),
    uniqueIndex("projects_live_default_uq").on(t.orgId).where(sql`${t.isDefault} and ${t.deletedAt} is null`),
    index("projects_org_idx").on(t.orgId, t.id),
  ],
);
