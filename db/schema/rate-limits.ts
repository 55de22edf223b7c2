import { index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Counter table of our rate-limiter-flexible store (lib/rate-limit/postgres-store.ts), used when REDIS_URL is unset. */
export const rateLimits = pgTable(
  "rate_limits",
  {
    key: text("key").primaryKey(),
    points: integer("points").notNull().default(0),
    expire: timestamp("expire", { withTimezone: true }),
  },
  // The process-wide sweep deletes by expiry; without the index it scans every key's row.
  (t) => [index("rate_limits_expire_idx").on(t.expire)],
);
