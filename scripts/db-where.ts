/**
 * `npm run db:where`: names the embedded database's directory, whether it runs and which of the
 * project's processes use it; as root, also the clusters under /var/lib/cockpit-gateway (a deleted
 * checkout leaves its cluster there). `-- --purge` deletes this project's cluster, refused while it
 * runs or is used.
 */
import fs from "node:fs";
import path from "node:path";
import { describeEmbeddedDatabase, purgeEmbeddedDatabase, rootClusterHomes } from "@/db/embedded";
import { embeddedDataDir } from "@/db/env";
import { usesEmbeddedDatabase } from "@/db/url";

const say = (line: string) => process.stdout.write(`${line}\n`);

function describeRootHomes(current: string): void {
  const others = rootClusterHomes().filter((h) => h.home !== current);
  if (others.length === 0) return;
  say("Other clusters under /var/lib/cockpit-gateway (made for root runs of other checkouts):");
  for (const h of others) {
    const gone = h.dataDir !== null && !fs.existsSync(path.dirname(h.dataDir));
    const state = h.runningPid ? `running, postgres pid ${h.runningPid}` : gone ? "its checkout is gone" : "stopped";
    say(`  ${h.home}  (for ${h.dataDir ?? "unknown"}; ${state})`);
  }
  say("  Remove one with `npm run db:where -- --purge` from its checkout, or `rm -rf` it once stopped.");
}

async function main(): Promise<number> {
  if (!usesEmbeddedDatabase()) {
    say("DATABASE_URL is set: the app uses that database, not an embedded one; nothing here to show or purge.");
    return 0;
  }
  const info = describeEmbeddedDatabase({ dataDir: embeddedDataDir() });
  const purge = process.argv.includes("--purge");
  say(`Embedded database: ${info.clusterDir}${info.home ? ` (for ${info.dataDir}; root runs keep it here)` : ""}`);
  if (!info.initialised) say("  not created yet (`npm start` creates it)");
  say(info.running ? `  running: postgres pid ${info.running.pid} on 127.0.0.1:${info.running.port}` : "  not running");
  say(info.users.length > 0 ? `  used by pid ${info.users.join(", ")}` : "  used by no project process");
  if (!purge) {
    describeRootHomes(info.home ?? "");
    return 0;
  }
  if (info.running || info.users.length > 0) {
    say("Refused: the database runs or is in use. Stop the app (Ctrl-C) and run `npm run db:stop` first.");
    return 1;
  }
  const removed = await purgeEmbeddedDatabase({ dataDir: embeddedDataDir() });
  say(removed.length > 0 ? `Removed ${removed.join(", ")}.` : "Nothing to remove.");
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
