CREATE TABLE "org_retention" (
	"org_id" text PRIMARY KEY NOT NULL,
	"calls_days" integer,
	"captures_days" integer,
	"rollups_days" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- The partition of `parent` holding one UTC day, named `<parent>_pYYYYMMDD`; true when it was
-- created now. Safe to race: two callers creating the same day both return.
CREATE OR REPLACE FUNCTION gateway_day_partition(parent text, day date) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  name text := parent || '_p' || to_char(day, 'YYYYMMDD');
BEGIN
  IF to_regclass(name) IS NOT NULL THEN
    RETURN false;
  END IF;
  EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
    name, parent, day::text || ' 00:00:00+00', (day + 1)::text || ' 00:00:00+00');
  RETURN true;
EXCEPTION WHEN duplicate_table OR unique_violation THEN
  RETURN false;
END $$;
--> statement-breakpoint
-- calls: the same columns, partitioned by day of received_at; every row copied over.
ALTER TABLE "calls" RENAME TO "calls_unpartitioned";--> statement-breakpoint
DROP INDEX "calls_project_time_idx";--> statement-breakpoint
DROP INDEX "calls_org_upstream_request_idx";--> statement-breakpoint
DROP INDEX "calls_org_upstream_response_idx";--> statement-breakpoint
DROP INDEX "calls_project_problem_idx";--> statement-breakpoint
DROP INDEX "calls_project_refused_idx";--> statement-breakpoint
DROP INDEX "calls_pricing_pending_idx";--> statement-breakpoint
CREATE TABLE "calls" (LIKE "calls_unpartitioned" INCLUDING DEFAULTS) PARTITION BY RANGE ("received_at");--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_pk" PRIMARY KEY("request_id","received_at");--> statement-breakpoint
CREATE INDEX "calls_project_time_idx" ON "calls" USING btree ("project_id","received_at");--> statement-breakpoint
CREATE INDEX "calls_org_upstream_request_idx" ON "calls" USING btree ("org_id","upstream_request_id");--> statement-breakpoint
CREATE INDEX "calls_org_upstream_response_idx" ON "calls" USING btree ("org_id","upstream_response_id");--> statement-breakpoint
CREATE INDEX "calls_project_problem_idx" ON "calls" USING btree ("project_id","received_at") WHERE "calls"."status" >= 400 or "calls"."stream_outcome" in ('truncated', 'upstream_error') or "calls"."route" = 'fallback';--> statement-breakpoint
CREATE INDEX "calls_project_refused_idx" ON "calls" USING btree ("project_id","received_at") WHERE "calls"."refused_by" is not null;--> statement-breakpoint
CREATE INDEX "calls_pricing_pending_idx" ON "calls" USING btree ("received_at") WHERE "calls"."unpriced_reason" = 'pricing_pending';--> statement-breakpoint
SELECT gateway_day_partition('calls', day)
FROM (SELECT DISTINCT ("received_at" AT TIME ZONE 'UTC')::date AS day FROM "calls_unpartitioned") days;--> statement-breakpoint
INSERT INTO "calls" SELECT * FROM "calls_unpartitioned";--> statement-breakpoint
DROP TABLE "calls_unpartitioned";--> statement-breakpoint
-- capture_index: gains the call's received_at (its partition key and the age retention reads),
-- taken from the call row, or the upload time for a capture whose call row is missing.
ALTER TABLE "capture_index" RENAME TO "capture_index_unpartitioned";--> statement-breakpoint
DROP INDEX "capture_index_project_idx";--> statement-breakpoint
DROP INDEX "capture_index_workload_idx";--> statement-breakpoint
ALTER TABLE "capture_index_unpartitioned" ADD COLUMN "received_at" timestamp with time zone;--> statement-breakpoint
UPDATE "capture_index_unpartitioned" ci
SET "received_at" = coalesce((SELECT c."received_at" FROM "calls" c WHERE c."request_id" = ci."request_id" LIMIT 1), ci."uploaded_at");--> statement-breakpoint
CREATE TABLE "capture_index" (LIKE "capture_index_unpartitioned" INCLUDING DEFAULTS) PARTITION BY RANGE ("received_at");--> statement-breakpoint
ALTER TABLE "capture_index" ALTER COLUMN "received_at" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "capture_index" ADD CONSTRAINT "capture_index_pk" PRIMARY KEY("request_id","received_at");--> statement-breakpoint
CREATE INDEX "capture_index_project_idx" ON "capture_index" USING btree ("project_id","uploaded_at","request_id");--> statement-breakpoint
CREATE INDEX "capture_index_workload_idx" ON "capture_index" USING btree ("project_id","workload_id","uploaded_at","request_id");--> statement-breakpoint
CREATE INDEX "capture_index_key_idx" ON "capture_index" USING btree ("key");--> statement-breakpoint
SELECT gateway_day_partition('capture_index', day)
FROM (SELECT DISTINCT ("received_at" AT TIME ZONE 'UTC')::date AS day FROM "capture_index_unpartitioned") days;--> statement-breakpoint
INSERT INTO "capture_index" SELECT * FROM "capture_index_unpartitioned";--> statement-breakpoint
DROP TABLE "capture_index_unpartitioned";
