import { bigint, customType, timestamp } from "drizzle-orm/pg-core";

/** Timestamps are stored with time zone; the API shows Unix seconds. */
export const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

/** Money is integer µO₮ (1 O₮ = 1,000,000 µO₮ = $0.001); `number` mode is exact far above any balance we accept. */
export const microOt = (name: string) => bigint(name, { mode: "number" });

/**
 * A jsonb column holding any JSON, strings included: drizzle's `jsonb` parses the driver's
 * already-parsed value again, turning the text `{"a":1}` into an object. This passes the driver's
 * value through.
 */
export const jsonbValue = customType<{ data: unknown; driverData: unknown }>({
  dataType: () => "jsonb",
  toDriver: (value) => JSON.stringify(value),
  fromDriver: (value) => value,
});
