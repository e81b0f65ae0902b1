CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"name" text,
	"key_hash" text NOT NULL,
	"obfuscated_value" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_key_hash_unique" UNIQUE("key_hash")
);
--> statement-breakpoint
CREATE TABLE "call_rollups_hourly" (
	"project_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"workload_id" text NOT NULL,
	"provider_label" text NOT NULL,
	"model" text NOT NULL,
	"route" text NOT NULL,
	"requests" bigint NOT NULL,
	"errors" bigint NOT NULL,
	"errors_5xx" bigint NOT NULL,
	"failing" bigint NOT NULL,
	"timeouts" bigint NOT NULL,
	"input_tokens" bigint NOT NULL,
	"cache_read_input_tokens" bigint NOT NULL,
	"cache_creation_input_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"priced_requests" bigint NOT NULL,
	"customer_cost_usd" numeric NOT NULL,
	CONSTRAINT "call_rollups_hourly_pk" PRIMARY KEY("project_id","hour","workload_id","provider_label","model","route")
);
--> statement-breakpoint
CREATE TABLE "calls" (
	"request_id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"project_id" text NOT NULL,
	"workload_id" text NOT NULL,
	"api_key_id" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"endpoint" text NOT NULL,
	"provider_label" text NOT NULL,
	"mode" text NOT NULL,
	"route" text NOT NULL,
	"requested_model" text,
	"served_model" text,
	"stream" boolean NOT NULL,
	"status" integer NOT NULL,
	"first_byte_ms" double precision,
	"total_ms" double precision NOT NULL,
	"stream_outcome" text NOT NULL,
	"error_type" text,
	"fallback_reason" text,
	"upstream_request_id" text,
	"upstream_response_id" text,
	"tags" jsonb NOT NULL,
	"usage_raw" jsonb,
	"input_tokens" bigint,
	"cache_read_input_tokens" bigint,
	"cache_creation_input_tokens" bigint,
	"cache_creation_5m_input_tokens" bigint,
	"cache_creation_1h_input_tokens" bigint,
	"output_tokens" bigint,
	"pricing_status" text DEFAULT 'unpriced' NOT NULL,
	"unpriced_reason" text,
	"price_id" text,
	"priced_at" timestamp with time zone,
	"uncached_input_usd" numeric,
	"cache_write_usd" numeric,
	"cache_read_usd" numeric,
	"output_usd" numeric,
	"customer_cost_usd" numeric
);
--> statement-breakpoint
CREATE TABLE "capture_index" (
	"request_id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"project_id" text NOT NULL,
	"workload_id" text NOT NULL,
	"api_key_id" text NOT NULL,
	"key" text NOT NULL,
	"size" bigint NOT NULL,
	"uploaded_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "catalog_deployments" (
	"id" text PRIMARY KEY NOT NULL,
	"model_id" text NOT NULL,
	"provider_label" text NOT NULL,
	"wire_format" text NOT NULL,
	"base_url" text NOT NULL,
	"upstream_model" text NOT NULL,
	"credential_env" text NOT NULL,
	"priority" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "catalog_models" (
	"id" text PRIMARY KEY NOT NULL,
	"display_name" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orgs" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prices" (
	"id" text PRIMARY KEY NOT NULL,
	"model" text NOT NULL,
	"effective_from" timestamp with time zone NOT NULL,
	"input_usd_per_mtok" numeric NOT NULL,
	"cache_write_5m_usd_per_mtok" numeric NOT NULL,
	"cache_write_1h_usd_per_mtok" numeric NOT NULL,
	"cache_read_usd_per_mtok" numeric NOT NULL,
	"output_usd_per_mtok" numeric NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" text PRIMARY KEY NOT NULL,
	"org_id" text NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "workloads" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"name" text NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"capture_enabled" boolean DEFAULT true NOT NULL,
	"capture_sample_rate" double precision DEFAULT 1 NOT NULL,
	"route_model_id" text,
	"route_traffic_pct" double precision DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "catalog_deployments" ADD CONSTRAINT "catalog_deployments_model_id_catalog_models_id_fk" FOREIGN KEY ("model_id") REFERENCES "public"."catalog_models"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_org_id_orgs_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."orgs"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workloads" ADD CONSTRAINT "workloads_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "workloads" ADD CONSTRAINT "workloads_route_model_id_catalog_models_id_fk" FOREIGN KEY ("route_model_id") REFERENCES "public"."catalog_models"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_keys_org_idx" ON "api_keys" USING btree ("org_id","created_at");--> statement-breakpoint
CREATE INDEX "calls_project_time_idx" ON "calls" USING btree ("project_id","received_at");--> statement-breakpoint
CREATE INDEX "calls_org_upstream_request_idx" ON "calls" USING btree ("org_id","upstream_request_id");--> statement-breakpoint
CREATE INDEX "calls_org_upstream_response_idx" ON "calls" USING btree ("org_id","upstream_response_id");--> statement-breakpoint
CREATE INDEX "calls_project_problem_idx" ON "calls" USING btree ("project_id","received_at") WHERE "calls"."status" >= 400 or "calls"."stream_outcome" in ('truncated', 'upstream_error') or "calls"."route" = 'fallback';--> statement-breakpoint
CREATE INDEX "calls_pricing_pending_idx" ON "calls" USING btree ("received_at") WHERE "calls"."unpriced_reason" = 'pricing_pending';--> statement-breakpoint
CREATE INDEX "capture_index_project_idx" ON "capture_index" USING btree ("project_id","uploaded_at","request_id");--> statement-breakpoint
CREATE INDEX "capture_index_workload_idx" ON "capture_index" USING btree ("project_id","workload_id","uploaded_at","request_id");--> statement-breakpoint
CREATE UNIQUE INDEX "prices_model_from_uq" ON "prices" USING btree ("model","effective_from");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_live_slug_uq" ON "projects" USING btree ("org_id","slug") WHERE "projects"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "projects_live_default_uq" ON "projects" USING btree ("org_id") WHERE "projects"."is_default" and "projects"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX "projects_org_idx" ON "projects" USING btree ("org_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "workloads_project_name_uq" ON "workloads" USING btree ("project_id","name");--> statement-breakpoint
CREATE UNIQUE INDEX "workloads_project_default_uq" ON "workloads" USING btree ("project_id") WHERE "workloads"."is_default";