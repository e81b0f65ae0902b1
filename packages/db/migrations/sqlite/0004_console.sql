CREATE TABLE `call_latency_hourly` (
	`project_id` text NOT NULL,
	`hour` integer NOT NULL,
	`workload_id` text NOT NULL,
	`model` text NOT NULL,
	`measure` text NOT NULL,
	`bucket_ms` integer NOT NULL,
	`calls` integer NOT NULL,
	PRIMARY KEY(`project_id`, `hour`, `workload_id`, `model`, `measure`, `bucket_ms`)
);
--> statement-breakpoint
ALTER TABLE `calls` ADD `repriced_at` integer;--> statement-breakpoint
ALTER TABLE `calls` ADD `repriced_from_price_id` text;--> statement-breakpoint
CREATE INDEX `calls_project_workload_time_idx` ON `calls` (`project_id`,`workload_id`,`received_at`);--> statement-breakpoint
CREATE INDEX `calls_project_model_time_idx` ON `calls` (`project_id`,`served_model`,`received_at`);