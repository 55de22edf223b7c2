CREATE TABLE "tools" (
	"id" text PRIMARY KEY NOT NULL,
	"company_id" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"json_schema" jsonb NOT NULL,
	"python_code" text NOT NULL,
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "tools" ADD CONSTRAINT "tools_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tools_company_created_idx" ON "tools" USING btree ("company_id","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "tools_active_name_per_company" ON "tools" USING btree ("company_id","name") WHERE "tools"."is_active" AND "tools"."deleted_at" IS NULL;