DROP INDEX "messages_thread_idx";--> statement-breakpoint
ALTER TABLE "threads" ADD COLUMN "next_seq" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Threads stored before the counter existed (completions' throwaway threads) continue after their last message.
UPDATE "threads" t SET "next_seq" = m.n FROM (SELECT "thread_id", max("seq") + 1 AS n FROM "messages" GROUP BY "thread_id") m WHERE m."thread_id" = t."id";--> statement-breakpoint
CREATE UNIQUE INDEX "messages_thread_seq_idx" ON "messages" USING btree ("thread_id","seq");
