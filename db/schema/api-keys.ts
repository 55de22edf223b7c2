import { index, integer, pgEnum, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { KEY_STATUS, KEY_STATUSES, SCOPES } from "../enums";
import { createdAt } from "./columns";
import { companies } from "./companies";

export const scopeEnum = pgEnum("scope", SCOPES);
export const keyStatusEnum = pgEnum("key_status", KEY_STATUSES);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    name: text("name").notNull(),
    /** First characters of the secret, shown in lists so people can tell keys apart. */
    prefix: text("prefix").notNull(),
    /** SHA-256 of the secret: keys are 190 random bits, so a slow hash adds nothing but latency. */
    keyHash: text("key_hash").notNull(),
    scopes: scopeEnum("scopes").array().notNull(),
    rateLimitPerMinute: integer("rate_limit_per_minute").notNull().default(60),
    status: keyStatusEnum("status").notNull().default(KEY_STATUS.active),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("api_keys_hash_unique").on(t.keyHash),
    index("api_keys_company_idx").on(t.companyId, t.createdAt),
  ],
);

export type ApiKey = typeof apiKeys.$inferSelect;
