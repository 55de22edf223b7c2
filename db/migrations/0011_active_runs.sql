CREATE TABLE "active_runs" (
	"thread_id" text PRIMARY KEY NOT NULL,
	"run_id" text NOT NULL,
	"company_id" text NOT NULL,
	"model" text NOT NULL,
	"stream" boolean DEFAULT false NOT NULL,
	"owner" text NOT NULL,
	"cancel_requested_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "active_runs_run_id_key" UNIQUE("run_id")
);
--> statement-breakpoint
-- Runs active at upgrade time move to active_runs (the reconciler judges their owners as before).
INSERT INTO "active_runs" ("thread_id", "run_id", "company_id", "model", "stream", "owner", "cancel_requested_at", "created_at")
SELECT "thread_id", "id", "company_id", "model", "stream", coalesce("owner", ''), "cancel_requested_at", "created_at"
FROM "runs" WHERE "status" IN ('queued', 'in_progress');--> statement-breakpoint
DELETE FROM "runs" WHERE "status" IN ('queued', 'in_progress');--> statement-breakpoint
DROP INDEX "runs_thread_active_idx";