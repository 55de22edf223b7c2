import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { companies } from "./companies";

/**
 * First-run setup links: while no panel user exists, each `npm start` issues one (older unused ones
 * are deleted). Only the SHA-256 of the token is stored; `consumedAt` makes it single use.
 */
export const setupTokens = pgTable(
  "setup_tokens",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    tokenHash: text("token_hash").notNull().unique(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    consumedAt: timestamp("consumed_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [index("setup_tokens_company_idx").on(t.companyId)],
);

export type SetupToken = typeof setupTokens.$inferSelect;
