import { sql } from "drizzle-orm";
import { check, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, microOt } from "./columns";

export const companies = pgTable(
  "companies",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    // balance = sum of the company's ledger rows; reserved = sum of its held reservations.
    // The checks make a negative balance or an over-reservation impossible, whatever the concurrency.
    balanceMicro: microOt("balance_micro").notNull().default(0),
    reservedMicro: microOt("reserved_micro").notNull().default(0),
    createdAt: createdAt(),
  },
  (t) => [
    check("companies_balance_non_negative", sql`${t.balanceMicro} >= 0`),
    check(
      "companies_reserved_within_balance",
      sql`${t.reservedMicro} >= 0 AND ${t.reservedMicro} <= ${t.balanceMicro}`,
    ),
  ],
);

export type Company = typeof companies.$inferSelect;
