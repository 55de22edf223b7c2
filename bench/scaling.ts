/**
 * How far one host and one PostgreSQL primary go (docs/operations.md, Scaling), and what metrics
 * and traces cost. Chat completions (JSON, persistence, rate limit and billing on) through each
 * setup on one database, measured in turns `--repeat` times, the order rotated each repetition:
 *
 *   1, 2 and 4 processes    WEB_CONCURRENCY, metrics on (the default)
 *   1 process, metrics off  METRICS_PORT=0: the metrics goal compares it with "1 process"
 *   1 process, traces on    OTLP/HTTP to a sink in this process that answers every export
 *
 * The database is an embedded PostgreSQL of the bench's own, so its CPU and its WAL are the calls'
 * alone: per answered call its CPU time and WAL bytes, hence the bills per second one database
 * core sustains with our statements.
 *
 *   npm run bench:scaling -- [--processes 1,2,4] [--connections 32] [--duration 6] [--warmup 2] [--repeat 3]
 *
 * Every 2xx answer must have its ledger row; beyond them, only the calls in flight when a timed
 * load reached its deadline (answered, billed, not counted).
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
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
import { appEnv, freePort, prepareBuild, ROOT, startNext } from "./lib/server";
import { fmt, renderTable } from "./lib/table";
import { median } from "./lib/spread";

const RESULTS_DIR = path.join(ROOT, "bench/results");
const BODY = JSON.stringify({ model: MODEL_SLUG, messages: [{ role: "user", content: "Say hello." }] });
const log = (m: string) => process.stderr.write(`[scaling] ${m}\n`);

/** One way of running the server; `processes` is its WEB_CONCURRENCY. */
interface Setup {
  id: string;
  processes: number;
  env: Record<string, string>;
}

interface Row {
  setup: string;
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

/** Metrics on at most this much below off, in req/s at 32 connections (median of the repetitions' ratios). */
const METRICS_COST_MAX_PCT = 3;

const plural = (n: number) => `${n} process${n === 1 ? "" : "es"}`;

function setups(processes: number[], traceSink: string, metricsPort: () => Promise<number>): Promise<Setup[]> {
  const withMetrics = async (n: number): Promise<Setup> => ({
    id: plural(n),
    processes: n,
    env: { METRICS_PORT: String(await metricsPort()) },
  });
  return Promise.all([
    ...processes.map(withMetrics),
    Promise.resolve({ id: "1 process, metrics off", processes: 1, env: { METRICS_PORT: "0" } }),
    withMetrics(1).then((s) => ({
      ...s,
      id: "1 process, traces on",
      env: { ...s.env, OTEL_EXPORTER_OTLP_ENDPOINT: traceSink, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" },
    })),
  ]);
}

/** An OTLP/HTTP receiver that takes every export and counts them (the traces bench row's collector). */
async function startTraceSink(): Promise<{ url: string; exports: () => number; close: () => Promise<void> }> {
  let exports = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      exports++;
      res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports: () => exports,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function runScalingBench(o: ScalingOptions): Promise<{ valid: boolean }> {
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

    const sink = await startTraceSink();
    stack.push({ name: "trace sink", fn: () => sink.close() });
    const all = await setups(o.processes, sink.url, freePort);

    let answered = 0;
    for (let rep = 1; rep <= repeat; rep++) {
      const order = all.map((_, i) => all[(i + rep - 1) % all.length]!);
      for (const setup of order) {
        const n = setup.processes;
        const server = await startNext({
          appRoot: build.appRoot,
          env: {
            ...appEnv(db.url, dataDir),
            OPENAI_API_KEY: "sk-bench",
            OPENAI_BASE_URL: up.openaiBase,
            WEB_CONCURRENCY: String(n),
            ...setup.env,
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
              label: setup.id,
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
            invalid.push(`${setup.id}, repetition ${rep}: ${m.non2xx} non-2xx, ${m.errors} errors`);
          rows.push({
            setup: setup.id,
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
            `${setup.id}, repetition ${rep}: ${fmt(m.rps, 0)} req/s, gateway ${fmt(m.serverCpuMsPerReq, 3)} ms CPU/call, ` +
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

    if (sink.exports() === 0) invalid.push("traces on: the sink received no export");
    const summary = all.map(({ id, processes }) => {
      const rs = rows.filter((r) => r.setup === id);
      const db = median(rs.map((r) => r.dbCpuMsPerReq ?? Number.NaN));
      return {
        setup: id,
        processes,
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
    // Each repetition's pair was measured minutes apart at most: the ratio is taken within it.
    const costPct = (variant: string) =>
      Array.from({ length: repeat }, (_, i) => {
        const on = rows.find((r) => r.setup === variant && r.repetition === i + 1);
        const off = rows.find((r) => r.setup === "1 process, metrics off" && r.repetition === i + 1);
        return on && off ? (1 - on.rps / off.rps) * 100 : Number.NaN;
      });
    const metricsCost = costPct(plural(1));
    const tracesCost = costPct("1 process, traces on");
    const verdicts = [
      {
        name: `metrics on: req/s below metrics off @${connections}c (repetitions: ${metricsCost.map((c) => fmt(c, 1)).join(", ")})`,
        value: median(metricsCost),
        unit: "%",
        target: `<= ${METRICS_COST_MAX_PCT} %`,
        result: median(metricsCost) <= METRICS_COST_MAX_PCT ? "PASS" : "MISS",
      },
      {
        name: `metrics and traces on: req/s below metrics off @${connections}c (repetitions: ${tracesCost.map((c) => fmt(c, 1)).join(", ")})`,
        value: median(tracesCost),
        unit: "%",
        target: "reported",
        result: "–",
      },
    ];
    for (const v of verdicts) log(`${v.name}: ${fmt(v.value, 1)} % (${v.target}) ${v.result}`);

    const table = renderTable(
      [
        "setup",
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
        s.setup,
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
      verdicts,
      traceExports: sink.exports(),
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
