CREATE TABLE "call_latency_hourly" (
	"project_id" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"workload_id" text NOT NULL,
	"model" text NOT NULL,
	"measure" text NOT NULL,
	"bucket_ms" bigint NOT NULL,
	"calls" bigint NOT NULL,
	CONSTRAINT "call_latency_hourly_pk" PRIMARY KEY("project_id","hour","workload_id","model","measure","bucket_ms")
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "repriced_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "repriced_from_price_id" text;--> statement-breakpoint
CREATE INDEX "calls_project_workload_time_idx" ON "calls" USING btree ("project_id","workload_id","received_at");--> statement-breakpoint
CREATE INDEX "calls_project_model_time_idx" ON "calls" USING btree ("project_id","served_model","received_at");--> statement-breakpoint
-- The calls already stored, in the latency histograms (packages/db/src/costing/latency.ts, addToLatency)
insert into call_latency_hourly (project_id, hour, workload_id, model, measure, bucket_ms, calls)
    select * from (
    select c.project_id, date_trunc('hour', c.received_at, 'UTC') as hour, c.workload_id, coalesce(c.served_model, '') as model, 'total' as measure,
           (case when floor(c.total_ms)::bigint < 100 then floor(c.total_ms)::bigint when floor(c.total_ms)::bigint < 1000 then floor(c.total_ms)::bigint / 10 * 10 when floor(c.total_ms)::bigint < 10000 then floor(c.total_ms)::bigint / 100 * 100 when floor(c.total_ms)::bigint < 100000 then floor(c.total_ms)::bigint / 1000 * 1000 when floor(c.total_ms)::bigint < 1000000 then floor(c.total_ms)::bigint / 10000 * 10000 when floor(c.total_ms)::bigint < 10000000 then floor(c.total_ms)::bigint / 100000 * 100000 else floor(c.total_ms)::bigint / 1000000 * 1000000 end) as bucket_ms, count(*) as calls
    from calls c
    where (true) and true
    group by 1, 2, 3, 4, 5, 6
    union all
    select c.project_id, date_trunc('hour', c.received_at, 'UTC') as hour, c.workload_id, coalesce(c.served_model, '') as model, 'first_byte' as measure,
           (case when floor(c.first_byte_ms)::bigint < 100 then floor(c.first_byte_ms)::bigint when floor(c.first_byte_ms)::bigint < 1000 then floor(c.first_byte_ms)::bigint / 10 * 10 when floor(c.first_byte_ms)::bigint < 10000 then floor(c.first_byte_ms)::bigint / 100 * 100 when floor(c.first_byte_ms)::bigint < 100000 then floor(c.first_byte_ms)::bigint / 1000 * 1000 when floor(c.first_byte_ms)::bigint < 1000000 then floor(c.first_byte_ms)::bigint / 10000 * 10000 when floor(c.first_byte_ms)::bigint < 10000000 then floor(c.first_byte_ms)::bigint / 100000 * 100000 else floor(c.first_byte_ms)::bigint / 1000000 * 1000000 end) as bucket_ms, count(*) as calls
    from calls c
    where (true) and c.first_byte_ms is not null
    group by 1, 2, 3, 4, 5, 6) h
    where true
    order by 1, 2, 3, 4, 5, 6
    on conflict (project_id, hour, workload_id, model, measure, bucket_ms)
      do update set calls = call_latency_hourly.calls + excluded.calls;
