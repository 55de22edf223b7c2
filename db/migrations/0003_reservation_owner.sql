-- Credit leases name the process that holds them, so a restarted server (or any process on the
-- same host) can give back the holds of one that was killed, instead of waiting for expires_at.
ALTER TABLE "reservations" ADD COLUMN "owner" text;--> statement-breakpoint
CREATE INDEX "reservations_held_owner_idx" ON "reservations" USING btree ("owner") WHERE "reservations"."status" = 'held' AND "reservations"."owner" IS NOT NULL;