ALTER TYPE "public"."thread_source" ADD VALUE 'responses';--> statement-breakpoint
ALTER TYPE "public"."thread_source" ADD VALUE 'conversations';--> statement-breakpoint
ALTER TYPE "public"."thread_source" ADD VALUE 'messages';--> statement-breakpoint
ALTER TABLE "threads" ADD COLUMN "import_key" text;--> statement-breakpoint
CREATE UNIQUE INDEX "threads_company_import_key_idx" ON "threads" USING btree ("company_id","import_key") WHERE "threads"."import_key" IS NOT NULL;