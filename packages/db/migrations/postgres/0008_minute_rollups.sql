CREATE TABLE "call_rollups_minutely" (
	"project_id" text NOT NULL,
	"minute" timestamp with time zone NOT NULL,
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
	CONSTRAINT "call_rollups_minutely_pk" PRIMARY KEY("project_id","minute","workload_id","provider_label","model","route")
);
--> statement-breakpoint
DROP INDEX "calls_project_refused_idx";--> statement-breakpoint
CREATE INDEX "calls_project_refused_idx" ON "calls" USING btree ("project_id","received_at","refused_by","workload_id","api_key_id") WHERE "calls"."refused_by" is not null;
--> statement-breakpoint
-- The calls already stored, in the per-minute rollups (packages/db/src/costing/measures.ts, addToRollups)
insert into call_rollups_minutely (project_id, minute, workload_id, provider_label, model, route, requests, errors, errors_5xx, failing, timeouts, input_tokens, cache_read_input_tokens, cache_creation_input_tokens, output_tokens, priced_requests, customer_cost_usd)
    select c.project_id, date_bin('60000 milliseconds'::interval, c.received_at, '1970-01-01T00:00:00Z'::timestamptz), c.workload_id, c.provider_label, coalesce(c.served_model, ''),
           c.route,
  count(*) as requests,
  sum(case when (c.status >= 400 or c.stream_outcome in ('truncated', 'upstream_error')) then 1 else 0 end) as errors,
  sum(case when (c.status >= 500) then 1 else 0 end) as errors_5xx,
  sum(case when (c.status >= 500 or c.stream_outcome in ('truncated', 'upstream_error') or c.route = 'fallback') then 1 else 0 end) as failing,
  sum(case when (c.route = 'fallback' and c.fallback_reason = 'timeout') then 1 else 0 end) as timeouts,
  coalesce(sum(c.input_tokens), 0) as input_tokens,
  coalesce(sum(c.cache_read_input_tokens), 0) as cache_read_input_tokens,
  coalesce(sum(c.cache_creation_input_tokens), 0) as cache_creation_input_tokens,
  coalesce(sum(c.output_tokens), 0) as output_tokens,
  sum(case when c.pricing_status = 'priced' then 1 else 0 end) as priced_requests, coalesce(sum(c.customer_cost_usd), 0) as customer_cost_usd
    from calls c
    where true
    group by 1, 2, 3, 4, 5, 6
    order by 1, 2, 3, 4, 5, 6
    on conflict (project_id, minute, workload_id, provider_label, model, route) do update set requests = call_rollups_minutely.requests + excluded.requests, errors = call_rollups_minutely.errors + excluded.errors, errors_5xx = call_rollups_minutely.errors_5xx + excluded.errors_5xx, failing = call_rollups_minutely.failing + excluded.failing, timeouts = call_rollups_minutely.timeouts + excluded.timeouts, input_tokens = call_rollups_minutely.input_tokens + excluded.input_tokens, cache_read_input_tokens = call_rollups_minutely.cache_read_input_tokens + excluded.cache_read_input_tokens, cache_creation_input_tokens = call_rollups_minutely.cache_creation_input_tokens + excluded.cache_creation_input_tokens, output_tokens = call_rollups_minutely.output_tokens + excluded.output_tokens, priced_requests = call_rollups_minutely.priced_requests + excluded.priced_requests, customer_cost_usd = call_rollups_minutely.customer_cost_usd + excluded.customer_cost_usd;