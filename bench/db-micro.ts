/**
 * What the per-request database work of /v1/me costs, without Next: the same queries and limiter
 * configuration the app uses (postgres.js pool of 10, drizzle, rate-limiter-flexible), run in this
 * process against a throw-away bench database, at concurrency 1 and 32.
 *
 *   npx tsx bench/db-micro.ts [--duration-ms 3000] [--concurrency 1,32]
 *
 * Uses only db/schema (no server-only) and plain SQL; the company comes from the operator CLI.
 */
import { eq, sql as sqlPlaceholderNs } from "drizzle-orm";
import { integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { drizzle } from "drizzle-orm/postgres-js";
import Redis from "ioredis";
import { parseArgs } from "node:util";
import postgres from "postgres";
import {
  RateLimiterDrizzle,
  RateLimiterMemory,
  RateLimiterRedis,
  type RateLimiterAbstract,
} from "rate-limiter-flexible";
import * as schema from "../db/schema";
import { createCompany } from "./lib/admin";
import { provisionDatabase } from "./lib/db";
import { runOps, type MicroResult } from "./lib/micro";
import { redisAnswers } from "./lib/server";
import { fmt, renderTable } from "./lib/table";

const { values: flags } = parseArgs({
  options: {
    "duration-ms": { type: "string", default: "3000" },
    concurrency: { type: "string", default: "1,32" },
  },
  strict: true,
});
const DURATION = Number(flags["duration-ms"]);
const CONC = flags.concurrency!.split(",").map(Number);
const POINTS = 100_000;
const sqlPlaceholder = (name: string) => sqlPlaceholderNs.placeholder(name);

/** Same columns as db/schema/rate-limits.ts, as an UNLOGGED table (no WAL, emptied after a crash). */
const rateLimitsUnlogged = pgTable("rate_limits_unlogged", {
  key: text("key").primaryKey(),
  points: integer("points").notNull().default(0),
  expire: timestamp("expire", { withTimezone: true }),
});

function limiterOpts(prefix: string) {
  // As lib/rate-limit/limiter.ts, with a huge budget so nothing is ever refused.
  return { points: POINTS * 1000, duration: 60, keyPrefix: prefix, inMemoryBlockOnConsumed: POINTS * 1000 + 1 };
}

async function main(): Promise<void> {
  const bench = await provisionDatabase({ serverUrl: process.env.DATABASE_URL || undefined });
  const sqls: postgres.Sql[] = [];
  const pool = (extra: postgres.Options<Record<string, never>> = {}) => {
    const s = postgres(bench.url, { max: 10, idle_timeout: 30, onnotice: () => {}, ...extra });
    sqls.push(s);
    return s;
  };
  let redis: Redis | undefined;
  const results: MicroResult[] = [];
  try {
    const companyId = await createCompany(bench.url, "Bench micro");
    const sql = pool();
    const db = drizzle(sql, { schema });
    await sql.unsafe("create unlogged table rate_limits_unlogged (like rate_limits including all)");
    const getCompanyPrepared = db
      .select()
      .from(schema.companies)
      .where(eq(schema.companies.id, sqlPlaceholder("id")))
      .limit(1)
      .prepare("bench_get_company");
    // As relaxedSql in db/client.ts: 4 connections, commits without waiting for the WAL flush.
    const sqlAsync = pool({ max: 4, connection: { synchronous_commit: "off" } });
    const dbAsync = drizzle(sqlAsync, { schema });

    const drizzleLimiter = new RateLimiterDrizzle({
      ...limiterOpts("rl"),
      storeClient: db,
      schema: schema.rateLimits,
      clearExpiredByTimeout: false,
    });
    const drizzleLimiterAsync = new RateLimiterDrizzle({
      ...limiterOpts("rla"),
      storeClient: dbAsync,
      schema: schema.rateLimits,
      clearExpiredByTimeout: false,
    });
    const drizzleLimiterUnlogged = new RateLimiterDrizzle({
      ...limiterOpts("rlu"),
      storeClient: db,
      schema: rateLimitsUnlogged,
      clearExpiredByTimeout: false,
    });
    const memLimiter = new RateLimiterMemory({ points: POINTS * 1000, duration: 60 });
    let redisLimiter: RateLimiterAbstract | undefined;
    if (await redisAnswers()) {
      redis = new Redis("redis://127.0.0.1:6379", { enableOfflineQueue: true, maxRetriesPerRequest: 2 });
      redisLimiter = new RateLimiterRedis({ ...limiterOpts(`rlbench${Date.now()}`), storeClient: redis });
    }

    const keys = (n: number) => (i: number) => `key:k${i % n}`;
    const ops: [string, (i: number) => Promise<unknown>][] = [
      ["postgres.js select 1", () => sql`select 1`],
      ["postgres.js company by id", () => sql`select * from companies where id = ${companyId} limit 1`],
      [
        "postgres.js unsafe, unprepared (drizzle's protocol) company by id",
        () => sql.unsafe("select * from companies where id = $1 limit 1", [companyId]),
      ],
      [
        "drizzle company by id (getCompany)",
        () => db.select().from(schema.companies).where(eq(schema.companies.id, companyId)).limit(1),
      ],
      ["drizzle .prepare()d company by id", () => getCompanyPrepared.execute({ id: companyId })],
      [
        "postgres.js rate-limit upsert, 1 key",
        () => sql`insert into rate_limits (key, points, expire) values ('raw:k0', 1, now() + interval '60 s')
                  on conflict (key) do update set
                    points = case when rate_limits.expire <= now() then 1 else rate_limits.points + 1 end,
                    expire = case when rate_limits.expire <= now() then now() + interval '60 s' else rate_limits.expire end
                  returning *`,
      ],
      ["RateLimiterMemory consume (library only)", (i) => memLimiter.consume(keys(3)(i))],
      ["RateLimiterDrizzle consume, 1 key", (i) => drizzleLimiter.consume(keys(1)(i))],
      ["RateLimiterDrizzle consume, 3 keys", (i) => drizzleLimiter.consume(`k3:${keys(3)(i)}`)],
      ["RateLimiterDrizzle consume, 32 keys", (i) => drizzleLimiter.consume(`k32:${keys(32)(i)}`)],
      [
        "RateLimiterDrizzle consume, 3 keys, synchronous_commit=off (pool 4, = app)",
        (i) => drizzleLimiterAsync.consume(keys(3)(i)),
      ],
      ["RateLimiterDrizzle consume, 3 keys, UNLOGGED table", (i) => drizzleLimiterUnlogged.consume(keys(3)(i))],
      [
        "postgres.js prepared upsert, 3 keys, synchronous_commit=off (pool 4)",
        (
          i,
        ) => sqlAsync`insert into rate_limits (key, points, expire) values (${`raw3:${keys(3)(i)}`}, 1, now() + interval '60 s')
                  on conflict (key) do update set
                    points = case when rate_limits.expire <= now() then 1 else rate_limits.points + 1 end,
                    expire = case when rate_limits.expire <= now() then now() + interval '60 s' else rate_limits.expire end
                  returning points, expire`,
      ],
      [
        "postgres.js upsert, 3 keys, UNLOGGED table",
        (
          i,
        ) => sql`insert into rate_limits_unlogged (key, points, expire) values (${keys(3)(i)}, 1, now() + interval '60 s')
                  on conflict (key) do update set
                    points = case when rate_limits_unlogged.expire <= now() then 1 else rate_limits_unlogged.points + 1 end,
                    expire = case when rate_limits_unlogged.expire <= now() then now() + interval '60 s' else rate_limits_unlogged.expire end
                  returning *`,
      ],
      ...(redisLimiter
        ? ([["RateLimiterRedis consume, 3 keys", (i: number) => redisLimiter.consume(keys(3)(i))]] as [
            string,
            (i: number) => Promise<unknown>,
          ][])
        : []),
    ];
    for (const c of CONC) {
      for (const [name, op] of ops) {
        process.stderr.write(`[bench] ${name} @${c}\n`);
        results.push(await runOps(name, op, { concurrency: c, durationMs: DURATION, warmupMs: 500 }));
      }
    }
  } finally {
    redis?.disconnect();
    for (const s of sqls) await s.end({ timeout: 2 });
    await bench.cleanup();
  }
  process.stdout.write(`\nper-operation cost, client = this process (pool max 10, as the app); db ${bench.mode}\n\n`);
  process.stdout.write(
    `${renderTable(
      ["operation", "conc", "ops/s", "p50 ms", "p99 ms", "client CPU ms/op", "errors"],
      results.map((r) => [
        r.name,
        String(r.concurrency),
        fmt(r.opsPerSec, 0),
        fmt(r.p50, 3),
        fmt(r.p99, 3),
        fmt(r.cpuMsPerOp, 3),
        r.errors ? `${r.errors} (${r.firstError})` : "0",
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
