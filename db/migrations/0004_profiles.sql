CREATE TABLE "profiles" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"company_id" text NOT NULL,
	"name" text NOT NULL,
	"system_prompt" text DEFAULT '' NOT NULL,
	"model_slug" text,
	"knowledge_base_ids" text[] DEFAULT '{}'::text[] NOT NULL,
	"allowed_tool_names" text[] DEFAULT '{}'::text[] NOT NULL,
	"use_kb" boolean DEFAULT true NOT NULL,
	"use_tools" boolean DEFAULT true NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "profiles" ADD CONSTRAINT "profiles_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "profiles_company_created_idx" ON "profiles" USING btree ("company_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "profiles_one_default_per_company" ON "profiles" USING btree ("company_id") WHERE "profiles"."is_default" AND "profiles"."is_active";