import { bigint, customType, text, timestamp } from "drizzle-orm/pg-core";

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

/**
 * The owning company of a row every call writes (runs, threads, messages, ledger entries, credit
 * leases), without a foreign key: each inserted row's check would take a KEY SHARE lock on the
 * company row that the same call's bill updates, and the checks took a quarter of the statement's
 * execution time. Companies are never deleted, and the id always comes from the caller's verified
 * key.
 */
export const callCompanyId = () => text("company_id").notNull();
