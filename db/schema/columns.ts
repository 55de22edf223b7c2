import { bigint, customType, timestamp } from "drizzle-orm/pg-core";

/** Timestamps are stored with time zone; the API shows Unix seconds. */
export const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/**
 * Money is integer micro-O₮ (1 O₮ = 1,000,000 µO₮; 1 O₮ = $0.001). `number` mode is exact up to
 * 2^53 µO₮ ≈ 9·10⁹ O₮, far above any balance we accept (see MAX_GRANT_MICRO).
 */
export const microOt = (name: string) => bigint(name, { mode: "number" });

/**
 * A jsonb column whose value may be any JSON, a string included. postgres.js already parses jsonb;
 * drizzle's own `jsonb` parses a string value a second time, so a message whose text is
 * `{"a":1}` came back as an object. This one hands the driver's value through as it is.
 */
export const jsonbValue = customType<{ data: unknown; driverData: unknown }>({
  dataType: () => "jsonb",
  toDriver: (value) => JSON.stringify(value),
  fromDriver: (value) => value,
});
