CREATE TABLE "limits" (
	"scope" text NOT NULL,
	"scope_id" text NOT NULL,
	"org_id" text NOT NULL,
	"requests_per_minute" integer,
	"tokens_per_minute" integer,
	"max_concurrent" integer,
	"budget_usd" numeric,
	"budget_period" text,
	"budget_applies_to" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "limits_pk" PRIMARY KEY("scope","scope_id")
);
--> statement-breakpoint
CREATE TABLE "spend_daily" (
	"scope" text NOT NULL,
	"scope_id" text NOT NULL,
	"day" date NOT NULL,
	"mode" text NOT NULL,
	"customer_cost_usd" numeric NOT NULL,
	CONSTRAINT "spend_daily_pk" PRIMARY KEY("scope","scope_id","day","mode")
);
--> statement-breakpoint
ALTER TABLE "calls" ADD COLUMN "refused_by" text;