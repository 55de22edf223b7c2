/**
 * Splits the cost of GET /v1/me into steps by loading requests that stop at each step, all on one
 * production server (plus a second one with REDIS_URL for the Redis limiter):
 *
 *   health          bare route handler
 *   me: no auth     apiRoute wrapper → 401 before any lookup (request id, error body, headers)
 *   me: unknown key apiRoute + sha256 + one uncached key SELECT → 401
 *   me              cached key + rate limit (PostgreSQL upsert) + getCompany SELECT → 200
 *   me (redis)      same with the Redis limiter
 *
 *   npx tsx bench/breakdown.ts [--duration 8] [--warmup 2] [--connections 1,32]
 *
 * Also reads pg_stat_database around each run: transactions and WAL bytes per request.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { createCompany, createKeys } from "./lib/admin";
import { provisionDatabase, type BenchDatabase } from "./lib/db";
import { measure, type Measurement, type MeasureSpec } from "./lib/measure";
import { RssSampler } from "./lib/proc";
import { appEnv, prepareBuild, redisAnswers, startNext } from "./lib/server";
import { fmt, renderTable } from "./lib/table";

const { values: flags } = parseArgs({
  options: {
    "isolated-build": { type: "boolean", default: false },
    duration: { type: "string", default: "8" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "1,32" },
  },
  strict: true,
});
// --isolated-build: build and serve a private copy (see prepareBuild in lib/server.ts).
const CONC = flags.connections!.split(",").map(Number);

interface Row {
  m: Measurement;
  xactPerReq: number | null;
  walBytesPerReq: number | null;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function pgCounters(sql: postgres.Sql, dbName: string): Promise<{ xact: number; wal: bigint }> {
  // Other backends flush their statistics at most once a second (PostgreSQL 15+).
  await sleep(1_200);
  const [row] = await sql<{ xact: string; lsn: string }[]>`
    select (xact_commit + xact_rollback)::text as xact, pg_current_wal_lsn()::text as lsn
    from pg_stat_database where datname = ${dbName}`;
  const [hi, lo] = row!.lsn.split("/").map((h) => BigInt(`0x${h}`));
  return { xact: Number(row!.xact), wal: (hi! << 32n) + lo! };
}

async function main(): Promise<void> {
  const prepared = await prepareBuild({ isolated: flags["isolated-build"] });
  let db: BenchDatabase;
  try {
    db = await provisionDatabase({ serverUrl: process.env.DATABASE_URL || undefined });
  } catch (err) {
    prepared.cleanup();
    throw err;
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-bench-data-"));
  const stats = postgres(db.url, { max: 1, onnotice: () => {} });
  const rows: Row[] = [];
  try {
    const companyId = await createCompany(db.url, "Bench breakdown");
    const keys = await createKeys(db.url, companyId, 3);
    const rotate = keys.map((k) => ({ authorization: `Bearer ${k.secret}` }));
    const unknownKey = { authorization: `Bearer sk-cp-${"x".repeat(40)}` };
    const env = appEnv(db.url, dataDir);
    const common = { durationS: Number(flags.duration), warmupS: Number(flags.warmup) };
    const variants: Omit<MeasureSpec, "connections" | "durationS" | "warmupS">[] = [
      { label: "health", path: "/api/health" },
      { label: "me: no auth (401)", path: "/v1/me" },
      { label: "me: unknown key (401)", path: "/v1/me", headers: unknownKey },
      { label: "me", path: "/v1/me", rotateHeaders: rotate },
    ];
    const run = async (serverEnv: Record<string, string>, list: typeof variants) => {
      const server = await startNext({ env: serverEnv, appRoot: prepared.appRoot });
      const rss = new RssSampler(server.pid).start();
      try {
        for (const c of CONC) {
          for (const v of list) {
            process.stderr.write(`[bench] ${v.label} @${c}c\n`);
            // Warm up separately so the counters only see the measured run.
            await measure({ server, rss }, { ...v, ...common, durationS: common.warmupS, warmupS: 0, connections: c });
            const before = await pgCounters(stats, db.name);
            const m = await measure({ server, rss, db }, { ...v, ...common, warmupS: 0, connections: c });
            const after = await pgCounters(stats, db.name);
            const n = Math.max(1, m.total);
            // Minus the two counter queries themselves.
            rows.push({
              m,
              xactPerReq: (after.xact - before.xact - 1) / n,
              walBytesPerReq: Number(after.wal - before.wal) / n,
            });
          }
        }
      } finally {
        rss.stop();
        await server.stop();
      }
    };
    await run(env, variants);
    if (await redisAnswers()) {
      await run({ ...env, REDIS_URL: "redis://127.0.0.1:6379" }, [
        { label: "me (redis rate limit)", path: "/v1/me", rotateHeaders: rotate },
      ]);
    }
  } finally {
    await stats.end({ timeout: 2 });
    await db.cleanup();
    prepared.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  process.stdout.write(
    `\n/v1/me step by step (db ${db.mode}); srv = the server process (scripts/server/main.mjs), db = PostgreSQL processes\n\n`,
  );
  process.stdout.write(
    `${renderTable(
      [
        "variant",
        "conns",
        "req/s",
        "p50 ms",
        "p99 ms",
        "status",
        "srv CPU ms/req",
        "srv sys %",
        "db CPU ms/req",
        "xact/req",
        "WAL B/req",
        "other cores",
      ],
      rows.map(({ m, xactPerReq, walBytesPerReq }) => [
        m.label,
        String(m.connections),
        fmt(m.rps, 0),
        fmt(m.p50, 3),
        fmt(m.p99, 3),
        Object.entries(m.statusCodes)
          .map(([k, v]) => `${k}:${v}`)
          .join(" "),
        fmt(m.serverCpuMsPerReq, 3),
        fmt(m.serverSysShare * 100, 0),
        m.dbCpuMsPerReq === null ? "-" : fmt(m.dbCpuMsPerReq, 3),
        xactPerReq === null ? "-" : fmt(xactPerReq, 2),
        walBytesPerReq === null ? "-" : fmt(walBytesPerReq, 0),
        m.otherCores === null ? "-" : fmt(m.otherCores, 2),
      ]),
    )}\n`,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
