/**
 * `npm start` (CONTRACT 1): zero config. Database up and migrated, demo data seeded on first run, a
 * production build if none exists, then scripts/server/main.mjs on PORT with the background worker
 * in-process. Once the server answers it prints where to go last: while no panel user exists, a
 * fresh one-time setup link (lib/setup). `--dev` runs `next dev`. It registers as an embedded-database user, so once the
 * server exits the database stops unless another project process still uses it; a DATABASE_URL
 * database is never stopped.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { db } from "@/db/client";
import { embeddedClusterDir } from "@/db/embedded";
import { attachDatabase } from "@/db/ensure";
import { embeddedDataDir } from "@/db/env";
import { usesEmbeddedDatabase } from "@/db/url";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { seedDemoIfEmpty } from "@/lib/seed/seed-demo";
import { issueSetupToken, SETUP_TOKEN_TTL_MS } from "@/lib/setup";
import { buildWidget } from "./build-widget";
import { runQuietBuild } from "./start/quiet-build";
import { readyBanner } from "./start/ready-banner";
import { loopbackOrigin, waitForHealth } from "./start/wait-for-health";
import { SERVER_ENV, SERVER_NODE_FLAGS } from "./server-node-flags";

const dev = process.argv.includes("--dev");
const nextBin = path.join(process.cwd(), "node_modules/next/dist/bin/next");
const SERVER_MAIN = path.join(process.cwd(), "scripts/server/main.mjs");
// next-auth derives its URL from the request's Host when no NEXTAUTH_URL is given.
const childEnv = { ...process.env, AUTH_TRUST_HOST: process.env.AUTH_TRUST_HOST ?? "1" };

let server: ChildProcess | undefined;
let releaseDatabase: (() => Promise<void>) | undefined;
let stopRequested = false;

/** After the server has gone: let go of the database, exit. */
async function exit(code: number): Promise<never> {
  try {
    await releaseDatabase?.();
  } catch (err) {
    log.error({ err }, "could not stop the embedded database; `npm run db:stop` stops it");
  }
  process.exit(code);
}

function onSignal(signal: NodeJS.Signals) {
  // The server finishes its requests and exits; its exit ends this process (below). Before the
  // server runs, main() stops at its next step, once the database it may be starting is up.
  if (server) server.kill(signal);
  else stopRequested = true;
}
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

function databaseBanner(): string {
  if (!usesEmbeddedDatabase()) return "  Database: DATABASE_URL (never started or stopped by this app)\n";
  return [
    `  Database: embedded PostgreSQL on 127.0.0.1:${env.EMBEDDED_PG_PORT} (data ${embeddedClusterDir({ dataDir: embeddedDataDir() })}).`,
    "  It stops when this app stops (Ctrl-C) unless another of the project's processes still uses it;",
    "  `npm run db:stop` stops it at any time; `npm run db:where` names it and can delete it.",
    "",
  ].join("\n");
}

/** The origin printed for a browser on this machine: `localhost`, unless the server listens on one address only. */
function browserOrigin(): string {
  const wildcardOrLoopback = ["0.0.0.0", "::", "127.0.0.1", "localhost"].includes(env.HOST);
  return wildcardOrLoopback ? `http://localhost:${env.PORT}` : loopbackOrigin(env.HOST, env.PORT);
}

async function main() {
  releaseDatabase = await attachDatabase();
  if (stopRequested) return exit(130);
  const seeded = await seedDemoIfEmpty(db);
  process.stdout.write(databaseBanner());
  // Always (~0.1 s): the served widget matches the sources even when the Next build is reused.
  await buildWidget();
  if (!dev && !fs.existsSync(path.join(process.cwd(), ".next/BUILD_ID"))) {
    await runQuietBuild({ nextBin, env: childEnv });
  }
  if (stopRequested) return exit(130);
  const serverArgs = dev
    ? [nextBin, "dev", "-p", String(env.PORT), "-H", env.HOST]
    : [...SERVER_NODE_FLAGS, SERVER_MAIN, "-p", String(env.PORT), "-H", env.HOST];
  server = spawn(process.execPath, serverArgs, {
    stdio: "inherit",
    env: dev ? childEnv : { ...SERVER_ENV, ...childEnv },
  });
  server.on("exit", (code) => void exit(code ?? 0));
  if (!(await waitForHealth(loopbackOrigin(env.HOST, env.PORT), server))) return;
  await announceReady(seeded?.key ?? null);
}

/**
 * The last block: where to go, and the setup link while no panel user exists. Issued once the server
 * answers, so the link works the moment it is printed and its hour starts then. A failure here leaves
 * the server running.
 */
async function announceReady(demoKey: string | null): Promise<void> {
  let setup: Awaited<ReturnType<typeof issueSetupToken>> = null;
  try {
    setup = await issueSetupToken(db);
  } catch (err) {
    log.error({ err }, "could not issue a setup link; restart to retry, or `npm run admin -- user create`");
  }
  process.stdout.write(
    readyBanner({
      origin: browserOrigin(),
      demoKey,
      demoCompanyId: setup?.companyId ?? null,
      setupToken: setup?.token ?? null,
      setupExpiresInMin: SETUP_TOKEN_TTL_MS / 60_000,
    }),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  void exit(1);
});
