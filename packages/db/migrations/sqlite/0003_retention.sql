CREATE TABLE `org_retention` (
	`org_id` text PRIMARY KEY NOT NULL,
	`calls_days` integer,
	`captures_days` integer,
	`rollups_days` integer,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_calls` (
	`request_id` text NOT NULL,
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
	`arm_source` text,
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
	`customer_cost_usd` integer,
	PRIMARY KEY(`request_id`, `received_at`)
);
--> statement-breakpoint
INSERT INTO `__new_calls`("request_id", "org_id", "project_id", "workload_id", "api_key_id", "received_at", "endpoint", "provider_label", "mode", "route", "requested_model", "served_model", "stream", "status", "first_byte_ms", "total_ms", "stream_outcome", "error_type", "refused_by", "fallback_reason", "arm_source", "upstream_request_id", "upstream_response_id", "tags", "usage_raw", "input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "cache_creation_5m_input_tokens", "cache_creation_1h_input_tokens", "output_tokens", "pricing_status", "unpriced_reason", "price_id", "priced_at", "uncached_input_usd", "cache_write_usd", "cache_read_usd", "output_usd", "customer_cost_usd") SELECT "request_id", "org_id", "project_id", "workload_id", "api_key_id", "received_at", "endpoint", "provider_label", "mode", "route", "requested_model", "served_model", "stream", "status", "first_byte_ms", "total_ms", "stream_outcome", "error_type", "refused_by", "fallback_reason", "arm_source", "upstream_request_id", "upstream_response_id", "tags", "usage_raw", "input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "cache_creation_5m_input_tokens", "cache_creation_1h_input_tokens", "output_tokens", "pricing_status", "unpriced_reason", "price_id", "priced_at", "uncached_input_usd", "cache_write_usd", "cache_read_usd", "output_usd", "customer_cost_usd" FROM `calls`;--> statement-breakpoint
DROP TABLE `calls`;--> statement-breakpoint
ALTER TABLE `__new_calls` RENAME TO `calls`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `calls_project_time_idx` ON `calls` (`project_id`,`received_at`);--> statement-breakpoint
CREATE INDEX `calls_org_upstream_request_idx` ON `calls` (`org_id`,`upstream_request_id`);--> statement-breakpoint
CREATE INDEX `calls_org_upstream_response_idx` ON `calls` (`org_id`,`upstream_response_id`);--> statement-breakpoint
CREATE INDEX `calls_project_problem_idx` ON `calls` (`project_id`,`received_at`) WHERE "calls"."status" >= 400 or "calls"."stream_outcome" in ('truncated', 'upstream_error') or "calls"."route" = 'fallback';--> statement-breakpoint
CREATE INDEX `calls_project_refused_idx` ON `calls` (`project_id`,`received_at`) WHERE "calls"."refused_by" is not null;--> statement-breakpoint
CREATE INDEX `calls_pricing_pending_idx` ON `calls` (`received_at`) WHERE "calls"."unpriced_reason" = 'pricing_pending';--> statement-breakpoint
CREATE TABLE `__new_capture_index` (
	`request_id` text NOT NULL,
	`org_id` text NOT NULL,
	`project_id` text NOT NULL,
	`workload_id` text NOT NULL,
	`api_key_id` text NOT NULL,
	`key` text NOT NULL,
	`size` integer NOT NULL,
	`offset` integer,
	`uploaded_at` integer NOT NULL,
	`received_at` integer NOT NULL,
	PRIMARY KEY(`request_id`, `received_at`)
);
--> statement-breakpoint
INSERT INTO `__new_capture_index`("request_id", "org_id", "project_id", "workload_id", "api_key_id", "key", "size", "offset", "uploaded_at", "received_at") SELECT ci."request_id", ci."org_id", ci."project_id", ci."workload_id", ci."api_key_id", ci."key", ci."size", ci."offset", ci."uploaded_at", coalesce((SELECT c."received_at" FROM `calls` c WHERE c."request_id" = ci."request_id" LIMIT 1), ci."uploaded_at") FROM `capture_index` ci;--> statement-breakpoint
DROP TABLE `capture_index`;--> statement-breakpoint
ALTER TABLE `__new_capture_index` RENAME TO `capture_index`;--> statement-breakpoint
CREATE INDEX `capture_index_project_idx` ON `capture_index` (`project_id`,`uploaded_at`,`request_id`);--> statement-breakpoint
CREATE INDEX `capture_index_workload_idx` ON `capture_index` (`project_id`,`workload_id`,`uploaded_at`,`request_id`);--> statement-breakpoint
CREATE INDEX `capture_index_key_idx` ON `capture_index` (`key`);