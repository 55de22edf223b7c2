-- Prices become the operator's (CONTRACT 7): they move to model_prices, which only the operator CLI
-- writes. The price columns of model_overrides held what company admins set on the panel; they are
-- dropped, not copied over, so no tenant-written price applies any more. Overrides that only
-- carried a price change nothing once it is gone.
DELETE FROM "model_overrides" WHERE "hidden" = false AND "enabled" IS NULL AND ("input_micro_per_m" IS NOT NULL OR "cached_input_micro_per_m" IS NOT NULL OR "output_micro_per_m" IS NOT NULL);--> statement-breakpoint
CREATE TABLE "model_prices" (
	"company_id" text NOT NULL,
	"slug" text NOT NULL,
	"input_micro_per_m" bigint NOT NULL,
	"cached_input_micro_per_m" bigint NOT NULL,
	"output_micro_per_m" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "model_prices_company_id_slug_pk" PRIMARY KEY("company_id","slug"),
	CONSTRAINT "model_prices_non_negative" CHECK ("model_prices"."input_micro_per_m" >= 0 AND "model_prices"."cached_input_micro_per_m" >= 0 AND "model_prices"."output_micro_per_m" >= 0)
);
--> statement-breakpoint
ALTER TABLE "model_prices" ADD CONSTRAINT "model_prices_company_id_companies_id_fk" FOREIGN KEY ("company_id") REFERENCES "public"."companies"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "model_prices" ADD CONSTRAINT "model_prices_slug_models_slug_fk" FOREIGN KEY ("slug") REFERENCES "public"."models"("slug") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "rate_limits_expire_idx" ON "rate_limits" USING btree ("expire");--> statement-breakpoint
ALTER TABLE "model_overrides" DROP COLUMN "input_micro_per_m";--> statement-breakpoint
ALTER TABLE "model_overrides" DROP COLUMN "cached_input_micro_per_m";--> statement-breakpoint
ALTER TABLE "model_overrides" DROP COLUMN "output_micro_per_m";