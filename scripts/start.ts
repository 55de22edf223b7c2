/**
 * `npm start` (CONTRACT 1): zero config. Database up and migrated (embedded when DATABASE_URL is
 * unset), demo data seeded on first run (printed once), a production build made if none exists,
 * then the production server (scripts/server/main.mjs: Next.js plus the fast lane) on PORT; the
 * background worker runs inside the server process (instrumentation.ts), so it lives and dies with it.
 * `--dev` runs `next dev` instead of building.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { db } from "@/db/client";
import { ensureDatabase } from "@/db/ensure";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { seedDemoIfEmpty } from "@/lib/seed/seed-demo";
import { SERVER_ENV, SERVER_NODE_FLAGS } from "./server-node-flags";

const dev = process.argv.includes("--dev");
const nextBin = path.join(process.cwd(), "node_modules/next/dist/bin/next");
const SERVER_MAIN = path.join(process.cwd(), "scripts/server/main.mjs");
// next-auth derives its URL from the request's Host when no NEXTAUTH_URL is given.
const childEnv = { ...process.env, AUTH_TRUST_HOST: process.env.AUTH_TRUST_HOST ?? "1" };

async function main() {
  await ensureDatabase();
  const seeded = await seedDemoIfEmpty(db);
  if (seeded) {
    process.stdout.write(
      [
        "",
        "  First run: created the demo company (10,000 O₮ of credits). Shown once; keep them:",
        `    panel login   ${seeded.email} / ${seeded.password}   (http://localhost:${env.PORT}/login)`,
        `    SDK key       ${seeded.key}   (all scopes)`,
        "",
        "",
      ].join("\n"),
    );
  }
  if (!dev && !fs.existsSync(path.join(process.cwd(), ".next/BUILD_ID"))) {
    log.info("no production build found; running next build");
    const build = spawnSync(process.execPath, [nextBin, "build"], { stdio: ["ignore", 2, 2], env: childEnv });
    if (build.status !== 0) throw new Error("next build failed");
  }
  const serverArgs = dev
    ? [nextBin, "dev", "-p", String(env.PORT), "-H", env.HOST]
    : [...SERVER_NODE_FLAGS, SERVER_MAIN, "-p", String(env.PORT), "-H", env.HOST];
  const server = spawn(process.execPath, serverArgs, {
    stdio: "inherit",
    env: dev ? childEnv : { ...SERVER_ENV, ...childEnv },
  });
  const forward = (signal: NodeJS.Signals) => () => server.kill(signal);
  process.on("SIGINT", forward("SIGINT"));
  process.on("SIGTERM", forward("SIGTERM"));
  server.on("exit", (code) => {
    process.exit(code ?? 0);
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
