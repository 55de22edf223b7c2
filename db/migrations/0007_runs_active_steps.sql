CREATE TABLE "message_images" (
	"company_id" text NOT NULL,
	"sha256" text NOT NULL,
	"mime_type" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "message_images_company_id_sha256_pk" PRIMARY KEY("company_id","sha256")
);
--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "tokens" integer;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "citations" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "steps" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "owner" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "cancel_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "message_images" ADD CONSTRAINT "message_images_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "runs_thread_active_idx" ON "runs" USING btree ("thread_id") WHERE status IN ('queued', 'in_progress');