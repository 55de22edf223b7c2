import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ensureEmbeddedDatabase, stopEmbeddedDatabase } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";

/**
 * The database every test stage uses: DATABASE_URL when set (CI points it at a fresh database on
 * the local server), else a throwaway embedded PostgreSQL in a temp dir on a free port.
 * Returns the URL and a cleanup function.
 */
export async function provisionTestDatabase(): Promise<{ url: string; cleanup: () => Promise<void> }> {
  if (process.env.DATABASE_URL) {
    await runMigrations(process.env.DATABASE_URL);
    return { url: process.env.DATABASE_URL, cleanup: async () => {} };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-test-"));
  const port = 55_000 + Math.floor(Math.random() * 5_000);
  const opts = { dataDir: path.join(dir, "pg"), port, database: "cockpit_test" };
  const url = await ensureEmbeddedDatabase(opts);
  await runMigrations(url);
  return {
    url,
    cleanup: async () => {
      await stopEmbeddedDatabase(opts);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
