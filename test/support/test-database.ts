import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { destroyEmbeddedDatabase, ensureEmbeddedDatabase } from "@/db/embedded";
import { runMigrations } from "@/db/migrate";

/**
 * The database every test stage uses: DATABASE_URL when set (CI points it at a fresh database on
 * the local server), else a throwaway embedded PostgreSQL in a temp dir on a free port (as root in
 * a tree the postgres user cannot enter, its cluster lives under /var/lib/cockpit-gateway until
 * cleanup: see db/embedded.ts). Returns the URL and a cleanup function.
 */
export async function provisionTestDatabase(): Promise<{ url: string; cleanup: () => Promise<void> }> {
  if (process.env.DATABASE_URL) {
    await runMigrations(process.env.DATABASE_URL);
    return { url: process.env.DATABASE_URL, cleanup: async () => {} };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-test-"));
  const port = 55_000 + Math.floor(Math.random() * 5_000);
  const opts = { dataDir: path.join(dir, "pg"), port, database: "cockpit_test" };
  const cleanup = async () => {
    await destroyEmbeddedDatabase(opts);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const url = await ensureEmbeddedDatabase(opts);
    await runMigrations(url);
    return { url, cleanup };
  } catch (err) {
    await cleanup().catch(() => {});
    throw err;
  }
}
