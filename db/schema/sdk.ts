import { sql } from "drizzle-orm";
import { bigint, check, index, jsonb, pgEnum, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { DEAL_STAGES, INVOICE_STATUSES } from "../enums";
import { createdAt } from "./columns";
import { companies } from "./companies";

export const dealStageEnum = pgEnum("deal_stage", DEAL_STAGES);
export const invoiceStatusEnum = pgEnum("invoice_status", INVOICE_STATUSES);

/** SDK money is integer minor units of `currency`, exact in sums and products; shown as two-decimal strings. */
const minorUnits = (name: string) => bigint(name, { mode: "number" });

/** A deal of the `crm` SDK service (lib/sdk/services/crm). */
export const crmDeals = pgTable(
  "crm_deals",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    title: text("title").notNull(),
    /** The customer the deal is with (free text). */
    contact: text("contact").notNull().default(""),
    amountMinor: minorUnits("amount_minor").notNull(),
    currency: text("currency").notNull(),
    stage: dealStageEnum("stage").notNull(),
    createdAt: createdAt(),
    /** The actor who created the deal (an SDK key id; a JWT counts as the key it was minted from). */
    createdBy: text("created_by").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    /** Last move between stages; null until the first move (creation sets the first stage). */
    stageChangedAt: timestamp("stage_changed_at", { withTimezone: true }),
    stageChangedBy: text("stage_changed_by"),
  },
  (t) => [
    index("crm_deals_company_created_idx").on(t.companyId, t.createdAt, t.id),
    index("crm_deals_company_stage_created_idx").on(t.companyId, t.stage, t.createdAt, t.id),
    check("crm_deals_amount_nonnegative", sql`${t.amountMinor} >= 0`),
  ],
);

/** Every move of a deal between stages: who and when (the deal row keeps only the last one). */
export const crmDealStageChanges = pgTable(
  "crm_deal_stage_changes",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    dealId: text("deal_id")
      .notNull()
      .references(() => crmDeals.id),
    fromStage: dealStageEnum("from_stage").notNull(),
    toStage: dealStageEnum("to_stage").notNull(),
    changedBy: text("changed_by").notNull(),
    changedAt: timestamp("changed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("crm_deal_stage_changes_deal_idx").on(t.dealId, t.changedAt)],
);

export interface InvoiceLine {
  description: string;
  quantity: number;
  unit_price_minor: number;
  amount_minor: number;
}

/** An invoice of the `billing` SDK service (lib/sdk/services/billing); not the O₮ ledger. */
export const sdkInvoices = pgTable(
  "sdk_invoices",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    customer: text("customer").notNull(),
    currency: text("currency").notNull(),
    /** Computed on the server: Σ quantity × unit price of `line_items`, never sent by the client. */
    totalMinor: minorUnits("total_minor").notNull(),
    lineItems: jsonb("line_items").$type<InvoiceLine[]>().notNull(),
    status: invoiceStatusEnum("status").notNull().default("open"),
    createdAt: createdAt(),
    createdBy: text("created_by").notNull(),
    paidAt: timestamp("paid_at", { withTimezone: true }),
    paidBy: text("paid_by"),
  },
  (t) => [
    index("sdk_invoices_company_created_idx").on(t.companyId, t.createdAt, t.id),
    index("sdk_invoices_company_status_created_idx").on(t.companyId, t.status, t.createdAt, t.id),
    check("sdk_invoices_total_nonnegative", sql`${t.totalMinor} >= 0`),
  ],
);

/**
 * One row per (company, idempotency_key) of POST /v1/sdk/action, inserted in the action's
 * transaction and holding its result, so a committed row is a finished action and a concurrent
 * repeat waits on the key, then reads the result. Rows are kept; the contract promises at least 24
 * h.
 */
export const sdkActionRuns = pgTable(
  "sdk_action_runs",
  {
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    idempotencyKey: text("idempotency_key").notNull(),
    service: text("service").notNull(),
    action: text("action").notNull(),
    /** SHA-256 (hex) of the canonical JSON of the input: the same key with other input is a 409. */
    inputHash: text("input_hash").notNull(),
    /** `in_progress` exists only inside the acting transaction; others see `completed` rows. */
    status: text("status").$type<"in_progress" | "completed">().notNull(),
    result: jsonb("result").$type<Record<string, unknown>>(),
    refresh: jsonb("refresh").$type<string[]>(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: "sdk_action_runs_pkey", columns: [t.companyId, t.idempotencyKey] }),
    index("sdk_action_runs_created_idx").on(t.createdAt),
  ],
);

export type CrmDeal = typeof crmDeals.$inferSelect;
export type CrmDealStageChange = typeof crmDealStageChanges.$inferSelect;
export type SdkInvoice = typeof sdkInvoices.$inferSelect;
