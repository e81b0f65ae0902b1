import { providerLabels, wireFormats } from "@gateway/contracts";
import { boolean, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Public catalog ids carry no provider, endpoint or deployment detail. */
export const catalogModels = pgTable("catalog_models", {
  id: text("id").primaryKey(),
  displayName: text("display_name").notNull(),
  active: boolean("active").notNull().default(true),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});

/** Where a catalog model is served; changing a deployment never changes the public id. */
export const catalogDeployments = pgTable("catalog_deployments", {
  id: text("id").primaryKey(),
  modelId: text("model_id")
    .notNull()
    .references(() => catalogModels.id),
  providerLabel: text("provider_label", { enum: providerLabels }).notNull(),
  wireFormat: text("wire_format", { enum: wireFormats }).notNull(),
  baseUrl: text("base_url").notNull(),
  upstreamModel: text("upstream_model").notNull(),
  /** Name of the env var holding the operator's credential; the secret itself is never stored. */
  credentialEnv: text("credential_env").notNull(),
  priority: integer("priority").notNull().default(0),
  createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
});
