import { attachEmbeddedDatabase, ensureEmbeddedDatabase } from "./embedded";
import { dbEnv, embeddedDataDir } from "./env";
import { runMigrations } from "./migrate";
import { databaseUrl, usesEmbeddedDatabase } from "./url";

let ready: Promise<string> | undefined;

const embeddedOptions = () => ({ port: dbEnv.EMBEDDED_PG_PORT, dataDir: embeddedDataDir(), database: "cockpit" });

/**
 * The one "make sure the database is up" step that the server, the worker, the CLI and the tests
 * call: starts the embedded server when DATABASE_URL is unset, then migrates. Memoised per process.
 */
export function ensureDatabase(): Promise<string> {
  ready ??= (async () => {
    if (usesEmbeddedDatabase()) await ensureEmbeddedDatabase(embeddedOptions());
    const url = databaseUrl();
    await runMigrations(url);
    return url;
  })();
  ready.catch(() => {
    ready = undefined;
  });
  return ready;
}

/**
 * ensureDatabase() for a process that uses the database until it exits (`npm start`, `npm run
 * dev`, `npm run worker`, `npm run admin`). On the embedded database the process is registered as
 * one of its users, and the returned release (call it once the process has stopped using the
 * database) stops the server when no other registered process is left. A database given by
 * DATABASE_URL is never started or stopped: release does nothing then.
 */
export async function attachDatabase(): Promise<() => Promise<void>> {
  if (!usesEmbeddedDatabase()) {
    await ensureDatabase();
    return async () => {};
  }
  const release = await attachEmbeddedDatabase(embeddedOptions());
  try {
    await ensureDatabase();
  } catch (err) {
    await release().catch(() => {});
    throw err;
  }
  return release;
}
