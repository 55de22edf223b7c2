/**
 * `npm run db:stop`: stops this project's embedded PostgreSQL (e.g. one left by a killed process),
 * signalling the postmaster directly so root works. Refuses while a project process uses it, unless
 * `--force`; never DATABASE_URL's.
 */
import path from "node:path";
import { embeddedClusterDir, embeddedDatabaseUsers, stopEmbeddedDatabase } from "@/db/embedded";
import { embeddedDataDir } from "@/db/env";
import { usesEmbeddedDatabase } from "@/db/url";

async function main(): Promise<number> {
  if (!usesEmbeddedDatabase()) {
    process.stdout.write("DATABASE_URL is set: that database is not this app's to stop; nothing done.\n");
    return 0;
  }
  const dataDir = path.resolve(embeddedDataDir());
  // As root the cluster may live under /var/lib/cockpit-gateway: name where it really is.
  const clusterDir = embeddedClusterDir({ dataDir });
  const users = embeddedDatabaseUsers({ dataDir });
  if (users.length > 0 && !process.argv.includes("--force")) {
    process.stdout.write(
      `The embedded database (${clusterDir}) is still used by pid ${users.join(", ")}; stop those ` +
        "(it then stops with the last of them) or run `npm run db:stop -- --force`.\n",
    );
    return 1;
  }
  const stopped = await stopEmbeddedDatabase({ dataDir });
  process.stdout.write(
    stopped
      ? `Stopped the embedded database (${clusterDir}); \`npm run db:where -- --purge\` deletes it.\n`
      : `The embedded database (${clusterDir}) is not running.\n`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
