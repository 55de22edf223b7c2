import { integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Counter table of rate-limiter-flexible's RateLimiterDrizzle (used when REDIS_URL is unset). */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  points: integer("points").notNull().default(0),
  expire: timestamp("expire", { withTimezone: true }),
});
