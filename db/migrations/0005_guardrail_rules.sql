CREATE TYPE "public"."guardrail_action" AS ENUM('block', 'redact', 'flag');--> statement-breakpoint
CREATE TYPE "public"."guardrail_match_type" AS ENUM('keyword', 'regex');--> statement-breakpoint
CREATE TYPE "public"."guardrail_stage" AS ENUM('input', 'output');--> statement-breakpoint
CREATE TABLE "guardrail_rules" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"name" text NOT NULL,
	"stage" "guardrail_stage" NOT NULL,
	"match_type" "guardrail_match_type" NOT NULL,
	"pattern" text NOT NULL,
	"action" "guardrail_action" NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "guardrail_rules" ADD CONSTRAINT "guardrail_rules_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "guardrail_rules_company_created_idx" ON "guardrail_rules" USING btree ("company_id","created_at","id");