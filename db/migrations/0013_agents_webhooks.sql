CREATE TYPE "public"."webhook_event_status" AS ENUM('accepted', 'routed', 'processing', 'done', 'failed', 'dead');--> statement-breakpoint
CREATE TYPE "public"."webhook_run_status" AS ENUM('pending', 'running', 'completed', 'failed');--> statement-breakpoint
CREATE TABLE "agents" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"name" text NOT NULL,
	"conductor_profile_id" uuid NOT NULL,
	"topics" text[] DEFAULT '{}'::text[] NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook_event_runs" (
	"event_id" text NOT NULL,
	"agent_id" text NOT NULL,
	"company_id" text NOT NULL,
	"thread_id" text,
	"run_id" text,
	"run_attempts" integer DEFAULT 0 NOT NULL,
	"status" "webhook_run_status" DEFAULT 'pending' NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_event_runs_event_id_agent_id_pk" PRIMARY KEY("event_id","agent_id")
);
--> statement-breakpoint
CREATE TABLE "webhook_events" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"webhook_id" text NOT NULL,
	"topic" text NOT NULL,
	"payload" jsonb NOT NULL,
	"idempotency_key" text,
	"status" "webhook_event_status" DEFAULT 'accepted' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"agent_id" text,
	"name" text NOT NULL,
	"secret_hash" text NOT NULL,
	"previous_secret_hash" text,
	"rotated_at" timestamp with time zone,
	"signing_secret" text,
	"require_signature" boolean DEFAULT false NOT NULL,
	"rate_limit_per_minute" integer,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_conductor_profile_id_profiles_id_fk" FOREIGN KEY ("conductor_profile_id") REFERENCES "public"."profiles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_event_runs" ADD CONSTRAINT "webhook_event_runs_event_id_webhook_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."webhook_events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_event_runs" ADD CONSTRAINT "webhook_event_runs_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_event_runs" ADD CONSTRAINT "webhook_event_runs_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_events" ADD CONSTRAINT "webhook_events_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "agents_company_created_idx" ON "agents" USING btree ("company_id","created_at","id");--> statement-breakpoint
CREATE INDEX "webhook_event_runs_agent_idx" ON "webhook_event_runs" USING btree ("agent_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_events_idempotency_idx" ON "webhook_events" USING btree ("webhook_id","idempotency_key") WHERE "webhook_events"."idempotency_key" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "webhook_events_company_created_idx" ON "webhook_events" USING btree ("company_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "webhook_events_webhook_created_idx" ON "webhook_events" USING btree ("webhook_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "webhooks_secret_hash_idx" ON "webhooks" USING btree ("secret_hash");--> statement-breakpoint
CREATE INDEX "webhooks_previous_secret_hash_idx" ON "webhooks" USING btree ("previous_secret_hash") WHERE "webhooks"."previous_secret_hash" IS NOT NULL;--> statement-breakpoint
CREATE INDEX "webhooks_company_created_idx" ON "webhooks" USING btree ("company_id","created_at","id");