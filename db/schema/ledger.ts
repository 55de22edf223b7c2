import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgEnum, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { LEDGER_KINDS, RESERVATION_STATUS, RESERVATION_STATUSES } from "../enums";
import { callCompanyId, createdAt, microOt } from "./columns";

export const ledgerKindEnum = pgEnum("ledger_kind", LEDGER_KINDS);
export const reservationStatusEnum = pgEnum("reservation_status", RESERVATION_STATUSES);

/** Append-only: every change of a company's balance is one row; the balance is their sum. */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: text("id").primaryKey(),
    companyId: callCompanyId(),
    kind: ledgerKindEnum("kind").notNull(),
    source: text("source").notNull(),
    amountMicro: microOt("amount_micro").notNull(),
    balanceAfterMicro: microOt("balance_after_micro").notNull(),
    model: text("model"),
    promptTokens: integer("prompt_tokens"),
    completionTokens: integer("completion_tokens"),
    referenceId: text("reference_id"),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [
    index("ledger_company_created_idx").on(t.companyId, t.createdAt, t.id),
    index("ledger_company_source_idx").on(t.companyId, t.source, t.createdAt),
  ],
);

/** Credit held for a call in flight; released when the call is billed (lib/billing/bill-call.ts) or, after a crash, by the reconciler. */
export const reservations = pgTable(
  "reservations",
  {
    id: text("id").primaryKey(),
    companyId: callCompanyId(),
    amountMicro: microOt("amount_micro").notNull(),
    status: reservationStatusEnum("status").notNull().default(RESERVATION_STATUS.held),
    referenceId: text("reference_id"),
    /** The process holding it (lib/billing/lease-owner.ts), so it can be released once that process is gone; null: only expires_at frees it. */
    owner: text("owner"),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("reservations_held_expiry_idx").on(t.status, t.expiresAt),
    // The reconciler lists the owners of held rows every few seconds.
    index("reservations_held_owner_idx")
      .on(t.owner)
      .where(sql`${t.status} = 'held' AND ${t.owner} IS NOT NULL`),
  ],
);

export type LedgerEntry = typeof ledgerEntries.$inferSelect;
export type Reservation = typeof reservations.$inferSelect;
