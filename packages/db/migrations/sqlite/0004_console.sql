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
CREATE INDEX `calls_project_model_time_idx` ON `calls` (`project_id`,`served_model`,`received_at`);--> statement-breakpoint
-- The calls already stored, in the latency histograms (packages/db/src/costing/latency.ts, addToLatency)
insert into call_latency_hourly (project_id, hour, workload_id, model, measure, bucket_ms, calls)
    select * from (
    select c.project_id, (c.received_at - c.received_at % 3600000) as hour, c.workload_id, coalesce(c.served_model, '') as model, 'total' as measure,
           (case when cast(c.total_ms as integer) < 100 then cast(c.total_ms as integer) when cast(c.total_ms as integer) < 1000 then cast(c.total_ms as integer) / 10 * 10 when cast(c.total_ms as integer) < 10000 then cast(c.total_ms as integer) / 100 * 100 when cast(c.total_ms as integer) < 100000 then cast(c.total_ms as integer) / 1000 * 1000 when cast(c.total_ms as integer) < 1000000 then cast(c.total_ms as integer) / 10000 * 10000 when cast(c.total_ms as integer) < 10000000 then cast(c.total_ms as integer) / 100000 * 100000 else cast(c.total_ms as integer) / 1000000 * 1000000 end) as bucket_ms, count(*) as calls
    from calls c
    where (true) and true
    group by 1, 2, 3, 4, 5, 6
    union all
    select c.project_id, (c.received_at - c.received_at % 3600000) as hour, c.workload_id, coalesce(c.served_model, '') as model, 'first_byte' as measure,
           (case when cast(c.first_byte_ms as integer) < 100 then cast(c.first_byte_ms as integer) when cast(c.first_byte_ms as integer) < 1000 then cast(c.first_byte_ms as integer) / 10 * 10 when cast(c.first_byte_ms as integer) < 10000 then cast(c.first_byte_ms as integer) / 100 * 100 when cast(c.first_byte_ms as integer) < 100000 then cast(c.first_byte_ms as integer) / 1000 * 1000 when cast(c.first_byte_ms as integer) < 1000000 then cast(c.first_byte_ms as integer) / 10000 * 10000 when cast(c.first_byte_ms as integer) < 10000000 then cast(c.first_byte_ms as integer) / 100000 * 100000 else cast(c.first_byte_ms as integer) / 1000000 * 1000000 end) as bucket_ms, count(*) as calls
    from calls c
    where (true) and c.first_byte_ms is not null
    group by 1, 2, 3, 4, 5, 6) h
    where true
    order by 1, 2, 3, 4, 5, 6
    on conflict (project_id, hour, workload_id, model, measure, bucket_ms)
      do update set calls = call_latency_hourly.calls + excluded.calls;
