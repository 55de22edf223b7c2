import { provisionTestDatabase } from "./test-database";

/**
 * Vitest global setup: one migrated database for the run. Workers are forked after this returns,
 * so they inherit DATABASE_URL (scripts/test.ts usually provisions it once for every stage).
 */
export default async function setup() {
  const { url, cleanup } = await provisionTestDatabase();
  process.env.DATABASE_URL = url;
  process.env.LOG_LEVEL ??= "warn";
  return cleanup;
}
