import { dbEnv, embeddedDataDir } from "./env";
import { ensureEmbeddedDatabase } from "./embedded";
import { runMigrations } from "./migrate";
import { databaseUrl, usesEmbeddedDatabase } from "./url";

let ready: Promise<string> | undefined;

/**
 * The one "make sure the database is up" step that the server, the worker, the CLI and the tests
 * call: starts the embedded server when DATABASE_URL is unset, then migrates. Memoised per process.
 */
export function ensureDatabase(): Promise<string> {
  ready ??= (async () => {
    if (usesEmbeddedDatabase()) {
      await ensureEmbeddedDatabase({ port: dbEnv.EMBEDDED_PG_PORT, dataDir: embeddedDataDir(), database: "cockpit" });
    }
    const url = databaseUrl();
    await runMigrations(url);
    return url;
  })();
  ready.catch(() => {
    ready = undefined;
  });
  return ready;
}
