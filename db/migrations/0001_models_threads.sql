CREATE TYPE "public"."model_status" AS ENUM('active', 'disabled', 'deprecated');--> statement-breakpoint
CREATE TYPE "public"."provider_protocol" AS ENUM('openai', 'anthropic', 'local');--> statement-breakpoint
CREATE TYPE "public"."run_status" AS ENUM('queued', 'in_progress', 'completed', 'failed', 'cancelled');--> statement-breakpoint
CREATE TYPE "public"."thread_source" AS ENUM('api', 'completions', 'webhook');--> statement-breakpoint
CREATE TABLE "model_overrides" (
	"company_id" text NOT NULL,
	"slug" text NOT NULL,
	"hidden" boolean DEFAULT false NOT NULL,
	"enabled" boolean,
	"input_micro_per_m" bigint,
	"cached_input_micro_per_m" bigint,
	"output_micro_per_m" bigint,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "model_overrides_company_id_slug_pk" PRIMARY KEY("company_id","slug")
);
--> statement-breakpoint
CREATE TABLE "models" (
	"slug" text PRIMARY KEY NOT NULL,
	"provider_group" text NOT NULL,
	"protocol" "provider_protocol" NOT NULL,
	"upstream_id" text NOT NULL,
	"context_window" integer NOT NULL,
	"supports_images" boolean NOT NULL,
	"supports_tools" boolean NOT NULL,
	"input_micro_per_m" bigint NOT NULL,
	"cached_input_micro_per_m" bigint NOT NULL,
	"output_micro_per_m" bigint NOT NULL,
	"status" "model_status" NOT NULL,
	"recommended" boolean DEFAULT false NOT NULL,
	"replacement" text,
	"fallbacks" text[] DEFAULT '{}'::text[] NOT NULL,
	"description" text,
	"catalog_version" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"thread_id" text NOT NULL,
	"role" text NOT NULL,
	"content" jsonb NOT NULL,
	"extra" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"run_id" text,
	"seq" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"thread_id" text NOT NULL,
	"model" text NOT NULL,
	"status" "run_status" DEFAULT 'queued' NOT NULL,
	"stream" boolean DEFAULT false NOT NULL,
	"prompt_tokens" integer DEFAULT 0 NOT NULL,
	"completion_tokens" integer DEFAULT 0 NOT NULL,
	"cached_tokens" integer DEFAULT 0 NOT NULL,
	"cost_micro" bigint DEFAULT 0 NOT NULL,
	"latency_ms" integer,
	"finish_reason" text,
	"error" jsonb,
	"tool_calls" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"applied_rules" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "threads" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"source" "thread_source" NOT NULL,
	"metadata" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "model_overrides" ADD CONSTRAINT "model_overrides_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "model_overrides" ADD CONSTRAINT "model_overrides_slug_models_slug_fk" FOREIGN KEY ("slug") REFERENCES "public"."models"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "runs" ADD CONSTRAINT "runs_thread_id_threads_id_fk" FOREIGN KEY ("thread_id") REFERENCES "public"."threads"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "threads" ADD CONSTRAINT "threads_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "messages_thread_idx" ON "messages" USING btree ("thread_id","created_at","seq");--> statement-breakpoint
CREATE INDEX "runs_thread_idx" ON "runs" USING btree ("thread_id","created_at");--> statement-breakpoint
CREATE INDEX "runs_company_idx" ON "runs" USING btree ("company_id","created_at");--> statement-breakpoint
CREATE INDEX "threads_company_created_idx" ON "threads" USING btree ("company_id","created_at","id");--> statement-breakpoint
CREATE INDEX "threads_company_source_idx" ON "threads" USING btree ("company_id","source","created_at");