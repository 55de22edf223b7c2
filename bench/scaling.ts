/**
 * How far one host and one PostgreSQL primary go (docs/operations.md, Scaling). Chat completions
 * (JSON, persistence, rate limit and billing on) through 1, 2 and 4 server processes
 * (WEB_CONCURRENCY) on one database, measured in turns `--repeat` times, the order rotated each
 * repetition. The database is an embedded PostgreSQL of the bench's own, so its CPU and its WAL
 * are the calls' alone: per answered call its CPU time and WAL bytes, hence the bills per second
 * one database core sustains with our statements.
 *
 *   npm run bench:scaling -- [--processes 1,2,4] [--connections 32] [--duration 6] [--warmup 2] [--repeat 3]
 *
 * Every 2xx answer must have its ledger row; beyond them, only the calls in flight when a timed
 * load reached its deadline (answered, billed, not counted).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { FAKE_REPLY, MODEL_SLUG, startUpstream } from "./completions";
import { admin, createCompany, createKeys } from "./lib/admin";
import { cleanupStack } from "./lib/cleanups";
import { provisionDatabase } from "./lib/db";
import { measure, type Measurement } from "./lib/measure";
import { RssSampler } from "./lib/proc";
import { appEnv, prepareBuild, ROOT, startNext } from "./lib/server";
import { fmt, renderTable } from "./lib/table";

const RESULTS_DIR = path.join(ROOT, "bench/results");
const BODY = JSON.stringify({ model: MODEL_SLUG, messages: [{ role: "user", content: "Say hello." }] });
const log = (m: string) => process.stderr.write(`[scaling] ${m}\n`);

interface Row {
  processes: number;
  repetition: number;
  rps: number;
  p50Ms: number;
  gatewayCpuMsPerReq: number;
  dbCpuMsPerReq: number | null;
  walBytesPerCall: number;
  answered: number;
  non2xx: number;
  peakRssMb: number;
  otherCores: number | null;
}

function commit(): string | null {
  try {
    return execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return null;
  }
}

const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return Number.NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const spread = (xs: number[]) => `${fmt(Math.min(...xs), 0)}–${fmt(Math.max(...xs), 0)}`;

export interface ScalingOptions {
  processes: number[];
  connections: number;
  durationS: number;
  warmupS: number;
  repeat: number;
  keys: number;
  isolatedBuild: boolean;
  name: string;
}

export async function runScalingBench(o: ScalingOptions): Promise<{ valid: boolean }> {
  const counts = o.processes;
  const repeat = o.repeat;
  const connections = o.connections;
  const { stack, runAll } = cleanupStack(log);
  const rows: Row[] = [];
  const invalid: string[] = [];
  try {
    const build = await prepareBuild({ isolated: o.isolatedBuild });
    stack.push({ name: "build", fn: () => build.cleanup() });
    // Embedded on purpose (DATABASE_URL is ignored): nothing else may write WAL or use its CPU.
    const db = await provisionDatabase({});
    stack.push({ name: "database", fn: () => db.cleanup() });
    const sql = postgres(db.url, { max: 2, onnotice: () => {} });
    stack.push({ name: "database client", fn: () => sql.end() });
    const up = await startUpstream();
    stack.push({ name: "fake upstream", fn: () => (up.rss.stop(), up.service.stop()) });
    const companyId = await createCompany(db.url, "Bench scaling");
    await admin(db.url, ["credits", "grant", "--company", companyId, "--amount", "1000000000", "--note", "scaling"]);
    const keys = await createKeys(db.url, companyId, o.keys);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-bench-scaling-"));
    stack.push({ name: "data dir", fn: () => fs.rmSync(dataDir, { recursive: true, force: true }) });

    let answered = 0;
    for (let rep = 1; rep <= repeat; rep++) {
      const order = counts.map((_, i) => counts[(i + rep - 1) % counts.length]!);
      for (const n of order) {
        const server = await startNext({
          appRoot: build.appRoot,
          env: {
            ...appEnv(db.url, dataDir),
            OPENAI_API_KEY: "sk-bench",
            OPENAI_BASE_URL: up.openaiBase,
            WEB_CONCURRENCY: String(n),
          },
        });
        const rss = new RssSampler(server.pid).start();
        try {
          const check = await fetch(`${server.baseUrl}/v1/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${keys[0]!.secret}` },
            body: BODY,
          });
          const text = await check.text();
          if (check.status !== 200 || !text.includes(FAKE_REPLY))
            throw new Error(`check call answered ${check.status}: ${text.slice(0, 300)}`);
          answered++;
          const [{ lsn: before }] = (await sql`SELECT pg_current_wal_lsn()::text AS lsn`) as unknown as [
            { lsn: string },
          ];
          const m: Measurement = await measure(
            { server, rss, db },
            {
              label: `${n} processes`,
              path: "/v1/chat/completions",
              method: "POST",
              headers: { "content-type": "application/json" },
              body: BODY,
              rotateHeaders: keys.map((k) => ({ authorization: `Bearer ${k.secret}` })),
              connections,
              durationS: o.durationS,
              warmupS: o.warmupS,
            },
          );
          const [{ bytes }] = (await sql`
            SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ${before}::pg_lsn)::text AS bytes`) as unknown as [
            { bytes: string },
          ];
          const calls = m.total + m.warmupRequests;
          answered += m.ok2xx + m.warmupRequests;
          if (m.non2xx || m.errors)
            invalid.push(`${n} processes, repetition ${rep}: ${m.non2xx} non-2xx, ${m.errors} errors`);
          rows.push({
            processes: n,
            repetition: rep,
            rps: m.rps,
            p50Ms: m.p50,
            gatewayCpuMsPerReq: m.serverCpuMsPerReq,
            dbCpuMsPerReq: m.dbCpuMsPerReq,
            walBytesPerCall: Number(bytes) / Math.max(1, calls),
            answered: m.ok2xx,
            non2xx: m.non2xx,
            peakRssMb: m.peakRssMb,
            otherCores: m.otherCores,
          });
          log(
            `${n} processes, repetition ${rep}: ${fmt(m.rps, 0)} req/s, gateway ${fmt(m.serverCpuMsPerReq, 3)} ms CPU/call, ` +
              `database ${fmt(m.dbCpuMsPerReq, 3)} ms CPU/call, ${fmt(Number(bytes) / Math.max(1, calls), 0)} WAL bytes/call`,
          );
        } finally {
          rss.stop();
          await server.stop(20_000);
        }
      }
    }
    // Every server is stopped: whatever it answered is committed.
    const [{ entries }] = (await sql`
      SELECT count(*)::int AS entries FROM ledger_entries WHERE company_id = ${companyId} AND kind = 'completion'`) as unknown as [
      { entries: number },
    ];
    // A timed load stops counting at its deadline: the calls then in flight are answered and billed uncounted.
    const allowance = rows.length * 2 * connections;
    if (entries < answered || entries > answered + allowance)
      invalid.push(
        `ledger: ${entries} debits for ${answered} answers 200 (+ up to ${allowance} in flight at the deadlines)`,
      );
    log(`ledger: ${entries} debits for ${answered} answers 200 (+ up to ${allowance} in flight at the deadlines)`);

    // What a call leaves on disk, table by table (heap, indexes and TOAST), over every call made.
    const tables = (await sql`
      SELECT relname AS table, pg_total_relation_size(c.oid)::bigint AS bytes
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind = 'r' AND relname IN ('threads', 'messages', 'runs', 'ledger_entries')
      ORDER BY relname`) as unknown as { table: string; bytes: string }[];
    const diskBytesPerCall = Object.fromEntries(tables.map((t) => [t.table, Number(t.bytes) / Math.max(1, entries)]));
    log(
      `disk bytes per call: ${JSON.stringify(diskBytesPerCall, (_k, v: unknown) => (typeof v === "number" ? Math.round(v) : v))}`,
    );

    const byCount = counts.map((n) => rows.filter((r) => r.processes === n));
    const summary = byCount.map((rs) => {
      const db = median(rs.map((r) => r.dbCpuMsPerReq ?? Number.NaN));
      return {
        processes: rs[0]!.processes,
        rps: median(rs.map((r) => r.rps)),
        rpsSpread: spread(rs.map((r) => r.rps)),
        p50Ms: median(rs.map((r) => r.p50Ms)),
        gatewayCpuMsPerReq: median(rs.map((r) => r.gatewayCpuMsPerReq)),
        dbCpuMsPerReq: db,
        billsPerDbCoreS: 1000 / db,
        walBytesPerCall: median(rs.map((r) => r.walBytesPerCall)),
        peakRssMb: Math.max(...rs.map((r) => r.peakRssMb)),
      };
    });
    const table = renderTable(
      [
        "processes",
        "req/s (median)",
        "spread",
        "p50 ms",
        "gw CPU ms/call",
        "db CPU ms/call",
        "bills/s per db core",
        "WAL bytes/call",
        "peak RSS MiB",
      ],
      summary.map((s) => [
        String(s.processes),
        fmt(s.rps, 0),
        s.rpsSpread,
        fmt(s.p50Ms, 1),
        fmt(s.gatewayCpuMsPerReq, 3),
        fmt(s.dbCpuMsPerReq, 3),
        fmt(s.billsPerDbCoreS, 0),
        fmt(s.walBytesPerCall, 0),
        fmt(s.peakRssMb, 0),
      ]),
    );
    process.stdout.write(`\n${table}\n`);
    const record = {
      bench: "scaling",
      machine: { node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model ?? "?" },
      database: { mode: db.mode },
      git: { commit: commit() },
      connections,
      durationS: o.durationS,
      repeat,
      rows,
      summary,
      ledger: { entries, answered, allowance },
      diskBytesPerCall,
      invalid,
      table,
    };
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    fs.writeFileSync(path.join(RESULTS_DIR, `${o.name}-latest.json`), `${JSON.stringify(record, null, 2)}\n`);
    log(`saved bench/results/${o.name}-latest.json`);
    return { valid: invalid.length === 0 };
  } finally {
    await runAll();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values: flags } = parseArgs({
    options: {
      processes: { type: "string", default: "1,2,4" },
      connections: { type: "string", default: "32" },
      duration: { type: "string", default: "6" },
      warmup: { type: "string", default: "2" },
      repeat: { type: "string", default: "3" },
      keys: { type: "string", default: "8" },
      "isolated-build": { type: "boolean", default: false },
      name: { type: "string", default: "scaling" },
    },
    strict: true,
  });
  runScalingBench({
    processes: flags.processes!.split(",").map(Number),
    connections: Number(flags.connections),
    durationS: Number(flags.duration),
    warmupS: Number(flags.warmup),
    repeat: Number(flags.repeat),
    keys: Number(flags.keys),
    isolatedBuild: flags["isolated-build"],
    name: flags.name!,
  }).then(
    (r) => process.exit(r.valid ? 0 : 1),
    (err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
