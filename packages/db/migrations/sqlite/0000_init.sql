CREATE TABLE `call_rollups_hourly` (
	`project_id` text NOT NULL,
	`hour` integer NOT NULL,
	`workload_id` text NOT NULL,
	`provider_label` text NOT NULL,
	`model` text NOT NULL,
	`route` text NOT NULL,
	`requests` integer NOT NULL,
	`errors` integer NOT NULL,
	`errors_5xx` integer NOT NULL,
	`failing` integer NOT NULL,
	`timeouts` integer NOT NULL,
	`input_tokens` integer NOT NULL,
	`cache_read_input_tokens` integer NOT NULL,
	`cache_creation_input_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`priced_requests` integer NOT NULL,
	`customer_cost_usd` integer NOT NULL,
	PRIMARY KEY(`project_id`, `hour`, `workload_id`, `provider_label`, `model`, `route`)
);
--> statement-breakpoint
CREATE TABLE `calls` (
	`request_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`project_id` text NOT NULL,
	`workload_id` text NOT NULL,
	`api_key_id` text NOT NULL,
	`received_at` integer NOT NULL,
	`endpoint` text NOT NULL,
	`provider_label` text NOT NULL,
	`mode` text NOT NULL,
	`route` text NOT NULL,
	`requested_model` text,
	`served_model` text,
	`stream` integer NOT NULL,
	`status` integer NOT NULL,
	`first_byte_ms` real,
	`total_ms` real NOT NULL,
	`stream_outcome` text NOT NULL,
	`error_type` text,
	`refused_by` text,
	`fallback_reason` text,
	`upstream_request_id` text,
	`upstream_response_id` text,
	`tags` text NOT NULL,
	`usage_raw` text,
	`input_tokens` integer,
	`cache_read_input_tokens` integer,
	`cache_creation_input_tokens` integer,
	`cache_creation_5m_input_tokens` integer,
	`cache_creation_1h_input_tokens` integer,
	`output_tokens` integer,
	`pricing_status` text DEFAULT 'unpriced' NOT NULL,
	`unpriced_reason` text,
	`price_id` text,
	`priced_at` integer,
	`uncached_input_usd` integer,
	`cache_write_usd` integer,
	`cache_read_usd` integer,
	`output_usd` integer,
	`customer_cost_usd` integer
);
--> statement-breakpoint
CREATE INDEX `calls_project_time_idx` ON `calls` (`project_id`,`received_at`);--> statement-breakpoint
CREATE INDEX `calls_org_upstream_request_idx` ON `calls` (`org_id`,`upstream_request_id`);--> statement-breakpoint
CREATE INDEX `calls_org_upstream_response_idx` ON `calls` (`org_id`,`upstream_response_id`);--> statement-breakpoint
CREATE INDEX `calls_project_problem_idx` ON `calls` (`project_id`,`received_at`) WHERE "calls"."status" >= 400 or "calls"."stream_outcome" in ('truncated', 'upstream_error') or "calls"."route" = 'fallback';--> statement-breakpoint
CREATE INDEX `calls_project_refused_idx` ON `calls` (`project_id`,`received_at`) WHERE "calls"."refused_by" is not null;--> statement-breakpoint
CREATE INDEX `calls_pricing_pending_idx` ON `calls` (`received_at`) WHERE "calls"."unpriced_reason" = 'pricing_pending';--> statement-breakpoint
CREATE TABLE `capture_index` (
	`request_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`project_id` text NOT NULL,
	`workload_id` text NOT NULL,
	`api_key_id` text NOT NULL,
	`key` text NOT NULL,
	`size` integer NOT NULL,
	`uploaded_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `capture_index_project_idx` ON `capture_index` (`project_id`,`uploaded_at`,`request_id`);--> statement-breakpoint
CREATE INDEX `capture_index_workload_idx` ON `capture_index` (`project_id`,`workload_id`,`uploaded_at`,`request_id`);--> statement-breakpoint
CREATE TABLE `spend_daily` (
	`scope` text NOT NULL,
	`scope_id` text NOT NULL,
	`day` text NOT NULL,
	`mode` text NOT NULL,
	`customer_cost_usd` integer NOT NULL,
	PRIMARY KEY(`scope`, `scope_id`, `day`, `mode`)
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text,
	`key_hash` text NOT NULL,
	`obfuscated_value` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_org_idx` ON `api_keys` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `catalog_deployments` (
	`id` text PRIMARY KEY NOT NULL,
	`model_id` text NOT NULL,
	`provider_label` text NOT NULL,
	`wire_format` text NOT NULL,
	`base_url` text NOT NULL,
	`upstream_model` text NOT NULL,
	`credential_env` text NOT NULL,
	`priority` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`model_id`) REFERENCES `catalog_models`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `catalog_models` (
	`id` text PRIMARY KEY NOT NULL,
	`display_name` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`scope` text NOT NULL,
	`route` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`owner` text NOT NULL,
	`status` integer,
	`response` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`scope`, `route`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_idx` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `limits` (
	`scope` text NOT NULL,
	`scope_id` text NOT NULL,
	`org_id` text NOT NULL,
	`requests_per_minute` integer,
	`tokens_per_minute` integer,
	`max_concurrent` integer,
	`budget_usd` integer,
	`budget_period` text,
	`budget_applies_to` text,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`scope`, `scope_id`)
);
--> statement-breakpoint
CREATE TABLE `orgs` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `prices` (
	`id` text PRIMARY KEY NOT NULL,
	`model` text NOT NULL,
	`effective_from` integer NOT NULL,
	`input_usd_per_mtok` text NOT NULL,
	`cache_write_5m_usd_per_mtok` text NOT NULL,
	`cache_write_1h_usd_per_mtok` text NOT NULL,
	`cache_read_usd_per_mtok` text NOT NULL,
	`output_usd_per_mtok` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `prices_model_from_uq` ON `prices` (`model`,`effective_from`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`settings` text DEFAULT '{}' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `orgs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_live_slug_uq` ON `projects` (`org_id`,`slug`) WHERE "projects"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX `projects_live_default_uq` ON `projects` (`org_id`) WHERE "projects"."is_default" and "projects"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `projects_org_idx` ON `projects` (`org_id`,`id`);--> statement-breakpoint
CREATE TABLE `workloads` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`capture_enabled` integer DEFAULT true NOT NULL,
	`capture_sample_rate` real DEFAULT 1 NOT NULL,
	`route_model_id` text,
	`route_traffic_pct` real DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`route_model_id`) REFERENCES `catalog_models`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workloads_project_name_uq` ON `workloads` (`project_id`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `workloads_project_default_uq` ON `workloads` (`project_id`) WHERE "workloads"."is_default";