/**
 * Runs once per server process before it serves requests: make sure the database is up and
 * migrated (embedded or DATABASE_URL). Node runtime only.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { ensureDatabase } = await import("./db/ensure");
    await ensureDatabase();
  }
}
