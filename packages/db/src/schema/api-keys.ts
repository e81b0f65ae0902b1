import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { orgs } from "./orgs.ts";

/** Our keys are stored only as SHA-256 hashes; the plaintext exists once, in the create response. */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id),
    name: text("name"),
    keyHash: text("key_hash").notNull().unique(),
    obfuscatedValue: text("obfuscated_value").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("api_keys_org_idx").on(t.orgId, t.createdAt)],
);
