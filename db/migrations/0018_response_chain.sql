ALTER TABLE "runs" ADD COLUMN "previous_run_id" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "request" jsonb;