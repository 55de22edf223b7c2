import { attachEmbeddedDatabase, ensureEmbeddedDatabase } from "./embedded";
import { dbEnv, embeddedDataDir } from "./env";
import { runMigrations } from "./migrate";
import { databaseUrl, usesEmbeddedDatabase } from "./url";

let ready: Promise<string> | undefined;

const embeddedOptions = () => ({ port: dbEnv.EMBEDDED_PG_PORT, dataDir: embeddedDataDir(), database: "cockpit" });

/** The one "database is up" step of server, worker, CLI and tests: embedded start if needed, then migrate. Memoised. */
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
 * ensureDatabase() for a process that uses the database until it exits. On the embedded database
 * the process registers as a user and the returned release stops the server when no user is left;
 * with DATABASE_URL release does nothing.
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
