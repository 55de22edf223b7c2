import { bigint, timestamp } from "drizzle-orm/pg-core";

/** Timestamps are stored with time zone; the API shows Unix seconds. */
export const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/**
 * Money is integer micro-O₮ (1 O₮ = 1,000,000 µO₮; 1 O₮ = $0.001). `number` mode is exact up to
 * 2^53 µO₮ ≈ 9·10⁹ O₮, far above any balance we accept (see MAX_GRANT_MICRO).
 */
export const microOt = (name: string) => bigint(name, { mode: "number" });
