import { doublePrecision, index, jsonb, pgEnum, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { USAGE_DIRECTIONS, USAGE_SOURCES } from "../enums";
import { createdAt, microOt } from "./columns";
import { companies } from "./companies";

export const usageSourceEnum = pgEnum("usage_source", USAGE_SOURCES);
export const usageDirectionEnum = pgEnum("usage_direction", USAGE_DIRECTIONS);

export const usageEvents = pgTable(
  "usage_events",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    source: usageSourceEnum("source").notNull(),
    durationS: doublePrecision("duration_s").notNull(),
    direction: usageDirectionEnum("direction").notNull(),
    costMicro: microOt("cost_micro").notNull(),
    balanceAfterMicro: microOt("balance_after_micro").notNull(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    /** Client-chosen `Idempotency-Key`; a retry with the same key returns this row. */
    idempotencyKey: text("idempotency_key"),
    /** SHA-256 of the canonical request body, to tell a retry from a different request (409). */
    requestHash: text("request_hash").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("usage_events_idempotency_unique").on(t.companyId, t.idempotencyKey),
    index("usage_events_company_idx").on(t.companyId, t.createdAt),
  ],
);

export type UsageEvent = typeof usageEvents.$inferSelect;
