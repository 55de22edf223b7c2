import { sql } from "drizzle-orm";
import { boolean, check, integer, pgEnum, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { MODEL_STATUSES, PROVIDER_PROTOCOLS } from "../enums";
import { createdAt, microOt } from "./columns";
import { companies } from "./companies";

export const modelStatusEnum = pgEnum("model_status", MODEL_STATUSES);
export const providerProtocolEnum = pgEnum("provider_protocol", PROVIDER_PROTOCOLS);

/** The system catalog from db/catalog/*.json. Prices are µO₮ per million tokens ($1.25/M = 1,250,000,000 µO₮/M). */
export const models = pgTable("models", {
  slug: text("slug").primaryKey(),
  providerGroup: text("provider_group").notNull(),
  protocol: providerProtocolEnum("protocol").notNull(),
  upstreamId: text("upstream_id").notNull(),
  contextWindow: integer("context_window").notNull(),
  supportsImages: boolean("supports_images").notNull(),
  supportsTools: boolean("supports_tools").notNull(),
  inputMicroPerM: microOt("input_micro_per_m").notNull(),
  cachedInputMicroPerM: microOt("cached_input_micro_per_m").notNull(),
  outputMicroPerM: microOt("output_micro_per_m").notNull(),
  status: modelStatusEnum("status").notNull(),
  recommended: boolean("recommended").notNull().default(false),
  /** Slug to use instead while this one is disabled (`claude-…` → `or-…`). */
  replacement: text("replacement"),
  /** Further upstream ids tried in order when the first fails (OpenRouter `or-` slugs). */
  fallbacks: text("fallbacks")
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  description: text("description"),
  catalogVersion: text("catalog_version").notNull(),
  createdAt: createdAt(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * A company admin's catalog changes: hide a slug, enable a disabled one. Never a price (CONTRACT
 * 7): calls are held and billed at the operator's price, so a tenant-written one would mean free
 * calls. Prices live in `model_prices`.
 */
export const modelOverrides = pgTable(
  "model_overrides",
  {
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    slug: text("slug")
      .notNull()
      .references(() => models.slug),
    hidden: boolean("hidden").notNull().default(false),
    enabled: boolean("enabled"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.slug] })],
);

/** The operator's per-company price of a slug (CLI `model price`), µO₮ per million tokens; no panel or API route writes it. */
export const modelPrices = pgTable(
  "model_prices",
  {
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    slug: text("slug")
      .notNull()
      .references(() => models.slug),
    inputMicroPerM: microOt("input_micro_per_m").notNull(),
    cachedInputMicroPerM: microOt("cached_input_micro_per_m").notNull(),
    outputMicroPerM: microOt("output_micro_per_m").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.companyId, t.slug] }),
    check(
      "model_prices_non_negative",
      sql`${t.inputMicroPerM} >= 0 AND ${t.cachedInputMicroPerM} >= 0 AND ${t.outputMicroPerM} >= 0`,
    ),
  ],
);

export type Model = typeof models.$inferSelect;
export type ModelOverride = typeof modelOverrides.$inferSelect;
export type ModelPrice = typeof modelPrices.$inferSelect;
