import { budgetAppliesTo, budgetPeriods, limitScopes } from "@gateway/contracts";
import { date, integer, numeric, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The limits set on an API key, a project or a workload (`scope`, `scope_id`): one row per scope
 * that has any; a null column is "no limit". Written by the control plane, published to the
 * gateway inside the scope's config entry.
 */
export const limits = pgTable(
  "limits",
  {
    scope: text("scope", { enum: limitScopes }).notNull(),
    scopeId: text("scope_id").notNull(),
    orgId: text("org_id").notNull(),
    requestsPerMinute: integer("requests_per_minute"),
    tokensPerMinute: integer("tokens_per_minute"),
    maxConcurrent: integer("max_concurrent"),
    budgetUsd: numeric("budget_usd"),
    budgetPeriod: text("budget_period", { enum: budgetPeriods }),
    budgetAppliesTo: text("budget_applies_to", { enum: budgetAppliesTo }),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "limits_pk", columns: [t.scope, t.scopeId] })],
);

/**
 * Priced cost per scope, UTC day and mode, maintained by pricing in the same statement as the
 * calls' cost (so it moves by exactly what the calls moved by). Budgets read their period's
 * spend from here: a month is the sum of its days.
 */
export const spendDaily = pgTable(
  "spend_daily",
  {
    scope: text("scope", { enum: limitScopes }).notNull(),
    scopeId: text("scope_id").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    mode: text("mode").notNull(),
    customerCostUsd: numeric("customer_cost_usd").notNull(),
  },
  (t) => [primaryKey({ name: "spend_daily_pk", columns: [t.scope, t.scopeId, t.day, t.mode] })],
);
