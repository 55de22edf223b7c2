import path from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { syncCatalog } from "./catalog/sync";

/** Arbitrary constant shared by every process that migrates this database. */
const MIGRATION_LOCK_ID = 727_001;

/**
 * Applies the committed migrations, then loads the model catalog. Idempotent; concurrent starts
 * queue on an advisory lock held on a dedicated connection.
 */
export async function runMigrations(url: string): Promise<void> {
  const conn = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await conn`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    try {
      await migrate(drizzle(conn), { migrationsFolder: path.join(process.cwd(), "db/migrations") });
      await syncCatalog(conn);
    } finally {
      await conn`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
    }
  } finally {
    await conn.end({ timeout: 5 });
  }
}
