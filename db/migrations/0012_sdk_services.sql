CREATE TYPE "public"."deal_stage" AS ENUM('lead', 'qualified', 'proposal', 'won', 'lost');--> statement-breakpoint
CREATE TYPE "public"."invoice_status" AS ENUM('open', 'paid');--> statement-breakpoint
CREATE TABLE "crm_deal_stage_changes" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"deal_id" text NOT NULL,
	"from_stage" "deal_stage" NOT NULL,
	"to_stage" "deal_stage" NOT NULL,
	"changed_by" text NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crm_deals" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"title" text NOT NULL,
	"contact" text DEFAULT '' NOT NULL,
	"amount_minor" bigint NOT NULL,
	"currency" text NOT NULL,
	"stage" "deal_stage" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"stage_changed_at" timestamp with time zone,
	"stage_changed_by" text,
	CONSTRAINT "crm_deals_amount_nonnegative" CHECK ("crm_deals"."amount_minor" >= 0)
);
--> statement-breakpoint
CREATE TABLE "sdk_action_runs" (
	"company_id" text NOT NULL,
	"idempotency_key" text NOT NULL,
	"service" text NOT NULL,
	"action" text NOT NULL,
	"input_hash" text NOT NULL,
	"status" text NOT NULL,
	"result" jsonb,
	"refresh" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sdk_action_runs_pkey" PRIMARY KEY("company_id","idempotency_key")
);
--> statement-breakpoint
CREATE TABLE "sdk_invoices" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"customer" text NOT NULL,
	"currency" text NOT NULL,
	"total_minor" bigint NOT NULL,
	"line_items" jsonb NOT NULL,
	"status" "invoice_status" DEFAULT 'open' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_by" text NOT NULL,
	"paid_at" timestamp with time zone,
	"paid_by" text,
	CONSTRAINT "sdk_invoices_total_nonnegative" CHECK ("sdk_invoices"."total_minor" >= 0)
);
--> statement-breakpoint
ALTER TABLE "crm_deal_stage_changes" ADD CONSTRAINT "crm_deal_stage_changes_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_deal_stage_changes" ADD CONSTRAINT "crm_deal_stage_changes_deal_id_crm_deals_id_fk" FOREIGN KEY ("deal_id") REFERENCES "public"."crm_deals"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crm_deals" ADD CONSTRAINT "crm_deals_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sdk_action_runs" ADD CONSTRAINT "sdk_action_runs_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sdk_invoices" ADD CONSTRAINT "sdk_invoices_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "crm_deal_stage_changes_deal_idx" ON "crm_deal_stage_changes" USING btree ("deal_id","changed_at");--> statement-breakpoint
CREATE INDEX "crm_deals_company_created_idx" ON "crm_deals" USING btree ("company_id","created_at","id");--> statement-breakpoint
CREATE INDEX "crm_deals_company_stage_created_idx" ON "crm_deals" USING btree ("company_id","stage","created_at","id");--> statement-breakpoint
CREATE INDEX "sdk_action_runs_created_idx" ON "sdk_action_runs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "sdk_invoices_company_created_idx" ON "sdk_invoices" USING btree ("company_id","created_at","id");--> statement-breakpoint
CREATE INDEX "sdk_invoices_company_status_created_idx" ON "sdk_invoices" USING btree ("company_id","status","created_at","id");