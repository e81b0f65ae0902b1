import { budgetAppliesTo, budgetPeriods, limitScopes, providerLabels, wireFormats } from "@gateway/contracts";
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, flag, instant, microUsd } from "./columns.ts";

/**
 * The control plane's tables on SQLite: the twins of `src/schema/*.ts` (read those for what each
 * table and column means), same names, same columns, same JS values.
 */

export const orgs = sqliteTable("orgs", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  createdAt: createdAt("created_at"),
});

export const orgRetention = sqliteTable("org_retention", {
  orgId: text("org_id").primaryKey(),
  callsDays: integer("calls_days"),
  capturesDays: integer("captures_days"),
  rollupsDays: integer("rollups_days"),
  updatedAt: createdAt("updated_at"),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id),
    name: text("name"),
    keyHash: text("key_hash").notNull().unique(),
    obfuscatedValue: text("obfuscated_value").notNull(),
    createdAt: createdAt("created_at"),
    lastUsedAt: instant("last_used_at"),
    revokedAt: instant("revoked_at"),
  },
  (t) => [index("api_keys_org_idx").on(t.orgId, t.createdAt)],
);

export const projects = sqliteTable(
  "projects",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => orgs.id),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    isDefault: flag("is_default").notNull().default(false),
    settings: text("settings", { mode: "json" }).$type<Record<string, never>>().notNull().default({}),
    createdAt: createdAt("created_at"),
    deletedAt: instant("deleted_at"),
  },
  (t) => [
    uniqueIndex("projects_live_slug_uq").on(t.orgId, t.slug).where(sql`${t.deletedAt} is null`),
    uniqueIndex("projects_live_default_uq").on(t.orgId).where(sql`${t.isDefault} and ${t.deletedAt} is null`),
    index("projects_org_idx").on(t.orgId, t.id),
  ],
);

export const catalogModels = sqliteTable("catalog_models", {
  id: text("id").primaryKey(),
  displayName: text("display_name").notNull(),
  active: flag("active").notNull().default(true),
  createdAt: createdAt("created_at"),
});

export const catalogDeployments = sqliteTable("catalog_deployments", {
  id: text("id").primaryKey(),
  modelId: text("model_id")
    .notNull()
    .references(() => catalogModels.id),
  providerLabel: text("provider_label", { enum: providerLabels }).notNull(),
  wireFormat: text("wire_format", { enum: wireFormats }).notNull(),
  baseUrl: text("base_url").notNull(),
  upstreamModel: text("upstream_model").notNull(),
  credentialEnv: text("credential_env").notNull(),
  priority: integer("priority").notNull().default(0),
  createdAt: createdAt("created_at"),
});

export const workloads = sqliteTable(
  "workloads",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    name: text("name").notNull(),
    isDefault: flag("is_default").notNull().default(false),
    captureEnabled: flag("capture_enabled").notNull().default(true),
    captureSampleRate: real("capture_sample_rate").notNull().default(1),
    routeModelId: text("route_model_id").references(() => catalogModels.id),
    routeTrafficPct: real("route_traffic_pct").notNull().default(0),
    createdAt: createdAt("created_at"),
    updatedAt: createdAt("updated_at"),
  },
  (t) => [
    uniqueIndex("workloads_project_name_uq").on(t.projectId, t.name),
    uniqueIndex("workloads_project_default_uq").on(t.projectId).where(sql`${t.isDefault}`),
  ],
);

/** Prices are the exact decimal text the operator wrote (at most 6 decimals): see money.ts. */
export const prices = sqliteTable(
  "prices",
  {
    id: text("id").primaryKey(),
    model: text("model").notNull(),
    effectiveFrom: instant("effective_from").notNull(),
    inputUsdPerMtok: text("input_usd_per_mtok").notNull(),
    cacheWrite5mUsdPerMtok: text("cache_write_5m_usd_per_mtok").notNull(),
    cacheWrite1hUsdPerMtok: text("cache_write_1h_usd_per_mtok").notNull(),
    cacheReadUsdPerMtok: text("cache_read_usd_per_mtok").notNull(),
    outputUsdPerMtok: text("output_usd_per_mtok").notNull(),
    createdAt: createdAt("created_at"),
  },
  (t) => [uniqueIndex("prices_model_from_uq").on(t.model, t.effectiveFrom)],
);

export const limits = sqliteTable(
  "limits",
  {
    scope: text("scope", { enum: limitScopes }).notNull(),
    scopeId: text("scope_id").notNull(),
    orgId: text("org_id").notNull(),
    requestsPerMinute: integer("requests_per_minute"),
    tokensPerMinute: integer("tokens_per_minute"),
    maxConcurrent: integer("max_concurrent"),
    budgetUsd: microUsd("budget_usd"),
    budgetPeriod: text("budget_period", { enum: budgetPeriods }),
    budgetAppliesTo: text("budget_applies_to", { enum: budgetAppliesTo }),
    updatedAt: createdAt("updated_at"),
  },
  (t) => [primaryKey({ name: "limits_pk", columns: [t.scope, t.scopeId] })],
);

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    scope: text("scope").notNull(),
    route: text("route").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    owner: text("owner").notNull(),
    status: integer("status"),
    response: text("response"),
    createdAt: createdAt("created_at"),
  },
  (t) => [
    primaryKey({ name: "idempotency_keys_pk", columns: [t.scope, t.route, t.key] }),
    index("idempotency_keys_created_idx").on(t.createdAt),
  ],
);
