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
CREATE INDEX "calls_project_model_time_idx" ON "calls" USING btree ("project_id","served_model","received_at");