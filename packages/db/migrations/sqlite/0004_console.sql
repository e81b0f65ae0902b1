CREATE TABLE `call_latency_hourly` (
	`project_id` text NOT NULL,
	`span_hours` integer NOT NULL,
	`starts_at` integer NOT NULL,
	`workload_id` text NOT NULL,
	`model` text NOT NULL,
	`measure` text NOT NULL,
	`bucket_ms` integer NOT NULL,
	`calls` integer NOT NULL,
	PRIMARY KEY(`project_id`, `span_hours`, `starts_at`, `workload_id`, `model`, `measure`, `bucket_ms`)
);
--> statement-breakpoint
ALTER TABLE `calls` ADD `repriced_at` integer;--> statement-breakpoint
ALTER TABLE `calls` ADD `repriced_from_price_id` text;--> statement-breakpoint
CREATE INDEX `calls_project_workload_time_idx` ON `calls` (`project_id`,`workload_id`,`received_at`);--> statement-breakpoint
CREATE INDEX `calls_project_model_time_idx` ON `calls` (`project_id`,`served_model`,`received_at`);--> statement-breakpoint
-- The calls already stored, in the latency histograms (packages/db/src/costing/latency.ts, addToLatency)
insert into call_latency_hourly (project_id, span_hours, starts_at, workload_id, model, measure, bucket_ms, calls)
    select * from (
    select project_id, 1 as span_hours, starts_at, workload_id, model, measure, bucket_ms, calls
    from (
    select project_id, starts_at, workload_id, model, measure, (case when v < 10 then v when v < 12 then 10 when v < 15 then 12 when v < 18 then 15 when v < 22 then 18 when v < 27 then 22 when v < 33 then 27 when v < 39 then 33 when v < 47 then 39 when v < 56 then 47 when v < 68 then 56 when v < 82 then 68 when v < 100 then 82 when v < 120 then 100 when v < 150 then 120 when v < 180 then 150 when v < 220 then 180 when v < 270 then 220 when v < 330 then 270 when v < 390 then 330 when v < 470 then 390 when v < 560 then 470 when v < 680 then 560 when v < 820 then 680 when v < 1000 then 820 when v < 1200 then 1000 when v < 1500 then 1200 when v < 1800 then 1500 when v < 2200 then 1800 when v < 2700 then 2200 when v < 3300 then 2700 when v < 3900 then 3300 when v < 4700 then 3900 when v < 5600 then 4700 when v < 6800 then 5600 when v < 8200 then 6800 when v < 10000 then 8200 when v < 12000 then 10000 when v < 15000 then 12000 when v < 18000 then 15000 when v < 22000 then 18000 when v < 27000 then 22000 when v < 33000 then 27000 when v < 39000 then 33000 when v < 47000 then 39000 when v < 56000 then 47000 when v < 68000 then 56000 when v < 82000 then 68000 when v < 100000 then 82000 when v < 120000 then 100000 when v < 150000 then 120000 when v < 180000 then 150000 when v < 220000 then 180000 when v < 270000 then 220000 when v < 330000 then 270000 when v < 390000 then 330000 when v < 470000 then 390000 when v < 560000 then 470000 when v < 680000 then 560000 when v < 820000 then 680000 when v < 1000000 then 820000 when v < 1200000 then 1000000 when v < 1500000 then 1200000 when v < 1800000 then 1500000 when v < 2200000 then 1800000 when v < 2700000 then 2200000 when v < 3300000 then 2700000 when v < 3900000 then 3300000 when v < 4700000 then 3900000 when v < 5600000 then 4700000 when v < 6800000 then 5600000 when v < 8200000 then 6800000 when v < 10000000 then 8200000 when v < 12000000 then 10000000 when v < 15000000 then 12000000 when v < 18000000 then 15000000 when v < 22000000 then 18000000 when v < 27000000 then 22000000 when v < 33000000 then 27000000 when v < 39000000 then 33000000 when v < 47000000 then 39000000 when v < 56000000 then 47000000 when v < 68000000 then 56000000 when v < 82000000 then 68000000 when v < 9007199254740991 then 82000000 end) as bucket_ms, count(*) as calls
    from (
    select c.project_id, (c.received_at - c.received_at % 3600000) as starts_at, c.workload_id, coalesce(c.served_model, '') as model,
           'total' as measure, cast(c.total_ms as integer) as v
    from calls c
    where (true) and true
      union all
    select c.project_id, (c.received_at - c.received_at % 3600000) as starts_at, c.workload_id, coalesce(c.served_model, '') as model,
           'first_byte' as measure, cast(c.first_byte_ms as integer) as v
    from calls c
    where (true) and c.first_byte_ms is not null) m
    group by 1, 2, 3, 4, 5, 6) p1 union all
    select project_id, 6 as span_hours, starts_at, workload_id, model, measure, bucket_ms, calls
    from (
    select project_id, starts_at, workload_id, model, measure, (case when v < 10 then v when v < 12 then 10 when v < 15 then 12 when v < 18 then 15 when v < 22 then 18 when v < 27 then 22 when v < 33 then 27 when v < 39 then 33 when v < 47 then 39 when v < 56 then 47 when v < 68 then 56 when v < 82 then 68 when v < 100 then 82 when v < 120 then 100 when v < 150 then 120 when v < 180 then 150 when v < 220 then 180 when v < 270 then 220 when v < 330 then 270 when v < 390 then 330 when v < 470 then 390 when v < 560 then 470 when v < 680 then 560 when v < 820 then 680 when v < 1000 then 820 when v < 1200 then 1000 when v < 1500 then 1200 when v < 1800 then 1500 when v < 2200 then 1800 when v < 2700 then 2200 when v < 3300 then 2700 when v < 3900 then 3300 when v < 4700 then 3900 when v < 5600 then 4700 when v < 6800 then 5600 when v < 8200 then 6800 when v < 10000 then 8200 when v < 12000 then 10000 when v < 15000 then 12000 when v < 18000 then 15000 when v < 22000 then 18000 when v < 27000 then 22000 when v < 33000 then 27000 when v < 39000 then 33000 when v < 47000 then 39000 when v < 56000 then 47000 when v < 68000 then 56000 when v < 82000 then 68000 when v < 100000 then 82000 when v < 120000 then 100000 when v < 150000 then 120000 when v < 180000 then 150000 when v < 220000 then 180000 when v < 270000 then 220000 when v < 330000 then 270000 when v < 390000 then 330000 when v < 470000 then 390000 when v < 560000 then 470000 when v < 680000 then 560000 when v < 820000 then 680000 when v < 1000000 then 820000 when v < 1200000 then 1000000 when v < 1500000 then 1200000 when v < 1800000 then 1500000 when v < 2200000 then 1800000 when v < 2700000 then 2200000 when v < 3300000 then 2700000 when v < 3900000 then 3300000 when v < 4700000 then 3900000 when v < 5600000 then 4700000 when v < 6800000 then 5600000 when v < 8200000 then 6800000 when v < 10000000 then 8200000 when v < 12000000 then 10000000 when v < 15000000 then 12000000 when v < 18000000 then 15000000 when v < 22000000 then 18000000 when v < 27000000 then 22000000 when v < 33000000 then 27000000 when v < 39000000 then 33000000 when v < 47000000 then 39000000 when v < 56000000 then 47000000 when v < 68000000 then 56000000 when v < 82000000 then 68000000 when v < 9007199254740991 then 82000000 end) as bucket_ms, count(*) as calls
    from (
    select c.project_id, (c.received_at - c.received_at % 21600000) as starts_at, c.workload_id, coalesce(c.served_model, '') as model,
           'total' as measure, cast(c.total_ms as integer) as v
    from calls c
    where (true) and true
      union all
    select c.project_id, (c.received_at - c.received_at % 21600000) as starts_at, c.workload_id, coalesce(c.served_model, '') as model,
           'first_byte' as measure, cast(c.first_byte_ms as integer) as v
    from calls c
    where (true) and c.first_byte_ms is not null) m
    group by 1, 2, 3, 4, 5, 6) p6 union all
    select project_id, 24 as span_hours, starts_at, workload_id, model, measure, bucket_ms, calls
    from (
    select project_id, starts_at, workload_id, model, measure, (case when v < 10 then v when v < 12 then 10 when v < 15 then 12 when v < 18 then 15 when v < 22 then 18 when v < 27 then 22 when v < 33 then 27 when v < 39 then 33 when v < 47 then 39 when v < 56 then 47 when v < 68 then 56 when v < 82 then 68 when v < 100 then 82 when v < 120 then 100 when v < 150 then 120 when v < 180 then 150 when v < 220 then 180 when v < 270 then 220 when v < 330 then 270 when v < 390 then 330 when v < 470 then 390 when v < 560 then 470 when v < 680 then 560 when v < 820 then 680 when v < 1000 then 820 when v < 1200 then 1000 when v < 1500 then 1200 when v < 1800 then 1500 when v < 2200 then 1800 when v < 2700 then 2200 when v < 3300 then 2700 when v < 3900 then 3300 when v < 4700 then 3900 when v < 5600 then 4700 when v < 6800 then 5600 when v < 8200 then 6800 when v < 10000 then 8200 when v < 12000 then 10000 when v < 15000 then 12000 when v < 18000 then 15000 when v < 22000 then 18000 when v < 27000 then 22000 when v < 33000 then 27000 when v < 39000 then 33000 when v < 47000 then 39000 when v < 56000 then 47000 when v < 68000 then 56000 when v < 82000 then 68000 when v < 100000 then 82000 when v < 120000 then 100000 when v < 150000 then 120000 when v < 180000 then 150000 when v < 220000 then 180000 when v < 270000 then 220000 when v < 330000 then 270000 when v < 390000 then 330000 when v < 470000 then 390000 when v < 560000 then 470000 when v < 680000 then 560000 when v < 820000 then 680000 when v < 1000000 then 820000 when v < 1200000 then 1000000 when v < 1500000 then 1200000 when v < 1800000 then 1500000 when v < 2200000 then 1800000 when v < 2700000 then 2200000 when v < 3300000 then 2700000 when v < 3900000 then 3300000 when v < 4700000 then 3900000 when v < 5600000 then 4700000 when v < 6800000 then 5600000 when v < 8200000 then 6800000 when v < 10000000 then 8200000 when v < 12000000 then 10000000 when v < 15000000 then 12000000 when v < 18000000 then 15000000 when v < 22000000 then 18000000 when v < 27000000 then 22000000 when v < 33000000 then 27000000 when v < 39000000 then 33000000 when v < 47000000 then 39000000 when v < 56000000 then 47000000 when v < 68000000 then 56000000 when v < 82000000 then 68000000 when v < 9007199254740991 then 82000000 end) as bucket_ms, count(*) as calls
    from (
    select c.project_id, (c.received_at - c.received_at % 86400000) as starts_at, c.workload_id, coalesce(c.served_model, '') as model,
           'total' as measure, cast(c.total_ms as integer) as v
    from calls c
    where (true) and true
      union all
    select c.project_id, (c.received_at - c.received_at % 86400000) as starts_at, c.workload_id, coalesce(c.served_model, '') as model,
           'first_byte' as measure, cast(c.first_byte_ms as integer) as v
    from calls c
    where (true) and c.first_byte_ms is not null) m
    group by 1, 2, 3, 4, 5, 6) p24) h
    where true
    order by 1, 2, 3, 4, 5, 6, 7
    on conflict (project_id, span_hours, starts_at, workload_id, model, measure, bucket_ms)
      do update set calls = call_latency_hourly.calls + excluded.calls;
