CREATE TABLE `org_retention` (
	`org_id` text PRIMARY KEY NOT NULL,
	`calls_days` integer,
	`captures_days` integer,
	`rollups_days` integer,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `__new_capture_index` (
	`request_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`project_id` text NOT NULL,
	`workload_id` text NOT NULL,
	`api_key_id` text NOT NULL,
	`key` text NOT NULL,
	`size` integer NOT NULL,
	`offset` integer,
	`uploaded_at` integer NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_capture_index`("request_id", "org_id", "project_id", "workload_id", "api_key_id", "key", "size", "offset", "uploaded_at", "received_at") SELECT ci."request_id", ci."org_id", ci."project_id", ci."workload_id", ci."api_key_id", ci."key", ci."size", ci."offset", ci."uploaded_at", coalesce((SELECT c."received_at" FROM `calls` c WHERE c."request_id" = ci."request_id" LIMIT 1), ci."uploaded_at") FROM `capture_index` ci;--> statement-breakpoint
DROP TABLE `capture_index`;--> statement-breakpoint
ALTER TABLE `__new_capture_index` RENAME TO `capture_index`;--> statement-breakpoint
CREATE INDEX `capture_index_project_idx` ON `capture_index` (`project_id`,`uploaded_at`,`request_id`);--> statement-breakpoint
CREATE INDEX `capture_index_workload_idx` ON `capture_index` (`project_id`,`workload_id`,`uploaded_at`,`request_id`);--> statement-breakpoint
CREATE INDEX `capture_index_key_idx` ON `capture_index` (`key`);