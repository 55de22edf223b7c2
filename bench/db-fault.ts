/**
 * DB-fault benchmark: throughput and errors of chat completions
 * through a PostgreSQL outage, and whether every answer was billed once it was over.
 *
 * The production server (scripts/server/main.mjs, as `npm start`) on its own database, with its
 * DATABASE_URL pointing through a TCP proxy (test/support/tcp-proxy.ts, the Toxiproxy technique)
 * so PostgreSQL can be cut for this server alone; the fake upstream (bench/fake-upstream-server.ts,
 * gpt-4.1-mini through the `openai` adapter: the path that persists and bills). For `--duration`
 * seconds (60) `--clients` clients (20, every second one streaming) POST /v1/chat/completions in a
 * loop, one call at a time; a client answered 503 (or with a transport error) waits `--backoff-ms`
 * (100) before its next call, as an SDK honouring Retry-After would, only sooner. At `--cut-at`
 * seconds (the middle: 25) PostgreSQL is cut for `--cut-for` seconds (10):
 *
 *   down       proxy.disable(): open connections reset, new ones refused (a server that is down)
 *   blackhole  proxy.pause(): nothing forwarded, no error either (a partitioned network)
 *
 * then restored. Every answer is classified 200 (a JSON answer with an id, or a stream that ended
 * with `data: [DONE]`), 503, or other (any other status, a 200 stream without [DONE], a transport
 * error, no answer within 30 s); per second: answers by class and latency p50/p99 (request start
 * to the last byte). /api/ready is polled every 250 ms to see when the server noticed.
 *
 * After the load the bench database must hold one `completion` ledger row per 200 (the warm-up
 * calls included) and none for anything else; bills of calls answered while the database was away
 * are written from the bill journal when it returns, so the count is polled for up to 10 s. A bill
 * whose ledger row was written after its run ended (created_at > runs.completed_at: only the
 * journal does that) counts as recovered. Then the company's credit leases still held are counted
 * (informative: a lease whose release failed during the cut waits for the reconciler).
 *
 * Goals (PASS/MISS, never failing the process): every 503 answered in < 2 s with Retry-After; the
 * first 200 < 2 s after the cut ended; 0 other answers; bills == 200s. A run is invalid (exit 1
 * standalone, `valid: false` from run.ts) when the server served no 200 before the cut, exited, or
 * the bills do not match the 200s (missing, extra or duplicate bills).
 *
 *   npm run bench -- --db-fault-only [--fault-duration 60 --fault-clients 20 --fault-mode down|blackhole --database-in-place]
 *   npx tsx bench/db-fault.ts [--duration 60 --clients 20 --cut-at 25 --cut-for 10 --fault-mode down|blackhole
 *                              --backoff-ms 100 --bucket 5 --quiet-wait 10 --database-in-place --isolated-build --rebuild]
 *
 * Database: as bench/body-flood.ts (a fresh cockpit_bench_<timestamp> on DATABASE_URL's server, or
 * that database itself with --database-in-place, or an embedded PostgreSQL). Results:
 * bench/results/db-fault-<timestamp>.json and db-fault-latest.json.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { startTcpProxy, type TcpProxy } from "../test/support/tcp-proxy";
import { MODEL_SLUG, startUpstream, type Upstream } from "./completions";
import { admin, createCompany, createKeys } from "./lib/admin";
import { provisionDatabase, useDatabase, type BenchDatabase } from "./lib/db";
import { waitForQuiet } from "./lib/measure";
import { cpuMsBetween, cpuTicksOf, machineBusyPct, machineCpu, processTree } from "./lib/proc";
import { appEnv, prepareBuild, ROOT, startNext, type BuildInfo, type NextServer } from "./lib/server";
import { fmt, renderTable } from "./lib/table";
import { cleanupStack } from "./lib/cleanups";

export const FAULT_MODES = ["down", "blackhole"] as const;
export type FaultMode = (typeof FAULT_MODES)[number];

export interface DbFaultOptions {
  /** Seconds during which clients start new calls (60). */
  durationS?: number;
  /** Concurrent clients, each one call at a time; every second one streams (20). */
  clients?: number;
  /** Second of the run at which PostgreSQL is cut (default: centred, (duration − cutFor) / 2). */
  cutAtS?: number;
  /** Seconds PostgreSQL stays cut (10). */
  cutForS?: number;
  /** down: connections reset and refused; blackhole: nothing forwarded, no error (down). */
  faultMode?: FaultMode;
  /** Pause of a client after a 503 or a transport error before its next call, in ms (100). */
  backoffMs?: number;
  /** Seconds per row of the printed table (5). */
  bucketS?: number;
  /** Before the run, wait up to this long for unrelated load to drop below 0.3 cores (10). */
  quietWaitS?: number;
  isolatedBuild?: boolean;
  rebuild?: boolean;
  /** PostgreSQL server for the bench database (default process.env.DATABASE_URL; none = embedded). */
  databaseUrl?: string;
  /** Use the database of `databaseUrl` as it is instead of creating a fresh one on its server. */
  databaseInPlace?: boolean;
  /** Results file prefix (db-fault). */
  name?: string;
}

export interface DbFaultResult {
  valid: boolean;
  file: string | null;
  table: string;
  verdicts: Verdict[];
}

interface Verdict {
  name: string;
  value: number | null;
  unit: string;
  target: string;
  result: "PASS" | "MISS" | "n/a";
}

const TARGET_503_MS = 2_000;
const TARGET_FIRST_200_MS = 2_000;
/** How long the journal gets to write what it kept once the load is over. */
const BILL_WAIT_MS = 10_000;
/** A call without its whole answer after this long is abandoned and counted as a hang. */
const REQUEST_TIMEOUT_MS = 30_000;
const READY_EVERY_MS = 250;
/** Idle leases are released 2 s after their last call: this is long enough to see them go. */
const LEASE_WAIT_MS = 5_000;
const PATH = "/v1/chat/completions";
/** Keys rotated by client, so no key's per-minute limit is reached at any throughput this box makes. */
const KEY_COUNT = 4;
const CREDITS_OT = 100_000_000;
const RESULTS_DIR = path.join(ROOT, "bench/results");

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const stampForFile = (d: Date) => d.toISOString().replaceAll(":", "-");

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function git(args: string[]): string | null {
  try {
    return execFileSync("git", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return null;
  }
}

/** One call; times in ms since the run's t0. */
interface Answer {
  client: number;
  stream: boolean;
  startMs: number;
  endMs: number;
  status: number;
  retryAfter: string | null;
  /** Streams: ended with `data: [DONE]`. */
  done?: boolean;
  /** The completion id (chatcmpl-…), which the bill's reference_id names. */
  id?: string;
  /** Transport error or timeout (status 0), or a body that could not be read. */
  error?: string;
  /** Start of the body of a non-200 answer. */
  body?: string;
  warmup?: boolean;
}

type Class = "ok" | "unavailable" | "other";

function classify(a: Answer): Class {
  if (a.error) return "other";
  if (a.status === 200) return a.id && (!a.stream || a.done) ? "ok" : "other";
  return a.status === 503 ? "unavailable" : "other";
}

/** What went wrong with an "other" answer, for counting. */
function otherKind(a: Answer): string {
  if (a.error) return a.status ? `${a.status} ${a.error}` : a.error;
  if (a.status === 200) return a.stream && !a.done ? "200 stream without [DONE]" : "200 without an id";
  return String(a.status);
}

/** One POST; resolves (never rejects) with the answer. */
function call(
  url: URL,
  agent: http.Agent,
  key: string,
  stream: boolean,
  n: number,
  client: number,
  t0: number,
): Promise<Answer> {
  const body = JSON.stringify({
    model: MODEL_SLUG,
    messages: [{ role: "user", content: `db-fault call ${n}` }],
    max_tokens: 50,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
  return new Promise((resolve) => {
    const startMs = Date.now() - t0;
    let settled = false;
    const answer: Answer = { client, stream, startMs, endMs: startMs, status: 0, retryAfter: null };
    const finish = (text: string | null, error?: string) => {
      if (settled) return;
      settled = true;
      answer.endMs = Date.now() - t0;
      if (error) answer.error = error;
      if (text !== null && !error) {
        if (answer.status !== 200) answer.body = text.slice(0, 300);
        else if (stream) {
          answer.done = text.trimEnd().endsWith("data: [DONE]");
          answer.id = /"id":"(chatcmpl-[^"]+)"/.exec(text)?.[1];
          if (!answer.done) answer.body = text.slice(-300);
        } else {
          try {
            answer.id = (JSON.parse(text) as { id?: string }).id;
          } catch {
            answer.error = "unparsable JSON body";
            answer.body = text.slice(0, 300);
          }
        }
      }
      resolve(answer);
    };
    const req = http.request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: "POST",
      agent,
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
      },
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer after ${REQUEST_TIMEOUT_MS / 1000} s`)));
    req.on("error", (err) => finish(null, (err as NodeJS.ErrnoException).code ?? err.message));
    req.on("response", (res) => {
      answer.status = res.statusCode ?? 0;
      const ra = res.headers["retry-after"];
      answer.retryAfter = typeof ra === "string" ? ra : null;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => finish(Buffer.concat(chunks).toString("utf8")));
      res.on("error", (err) => finish(null, `body: ${(err as NodeJS.ErrnoException).code ?? err.message}`));
      // Closed before its end (the server destroyed the socket mid-answer).
      res.on("close", () => finish(null, "body cut off"));
    });
    req.end(body);
  });
}

interface PhaseStats {
  name: string;
  fromS: number;
  toS: number;
  ok: number;
  okPerS: number;
  answersPerS: number;
  unavailable: number;
  other: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

function phaseStats(name: string, answers: Answer[], fromMs: number, toMs: number): PhaseStats {
  const inPhase = answers.filter((a) => a.endMs >= fromMs && a.endMs < toMs);
  const lat = inPhase.map((a) => a.endMs - a.startMs).sort((x, y) => x - y);
  const s = Math.max(0.001, (toMs - fromMs) / 1000);
  const ok = inPhase.filter((a) => classify(a) === "ok").length;
  return {
    name,
    fromS: fromMs / 1000,
    toS: toMs / 1000,
    ok,
    okPerS: ok / s,
    answersPerS: inPhase.length / s,
    unavailable: inPhase.filter((a) => classify(a) === "unavailable").length,
    other: inPhase.filter((a) => classify(a) === "other").length,
    p50Ms: percentile(lat, 0.5),
    p99Ms: percentile(lat, 0.99),
    maxMs: lat.length ? lat.at(-1)! : Number.NaN,
  };
}

interface Bills {
  expected: number;
  ledgerRows: number;
  /** Written after their run ended, i.e. from the bill journal once the database was back. */
  recovered: number;
  /** 200s with no bill. */
  missing: string[];
  /** Bills whose reference is not a 200 this bench saw (first 20), and how many. */
  extra: string[];
  extraCount: number;
  /** Bills of answers the bench counted as "other" (a broken stream, a cut-off answer). */
  billedOthers: number;
  duplicates: string[];
  runsByStatus: Record<string, number>;
  /** Seconds after the load ended until the ledger held a row per 200 (null: never within the wait). */
  settledAfterS: number | null;
  /**
   * Credit leases (held reservations) of the company still open after waiting up to LEASE_WAIT_MS
   * once the bills settled: an idle lease is released 2 s after its last call; one whose release failed while the
   * database was away stays held until the reconciler expires it (120 s after its last draw).
   */
  heldAfterLoad: { rows: number; micro: number; balanceMicro: number };
}

async function countBills(databaseUrl: string, companyId: string, answers: Answer[], waitMs: number): Promise<Bills> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const okIds = answers.filter((a) => classify(a) === "ok").map((a) => a.id!);
    const otherIds = new Set(answers.filter((a) => classify(a) === "other" && a.id).map((a) => a.id!));
    const count = async () => {
      const [r] = await sql<
        { n: string }[]
      >`select count(*)::text as n from ledger_entries where company_id = ${companyId} and kind = 'completion'`;
      return Number(r!.n);
    };
    const t = Date.now();
    let settledAfterS: number | null = null;
    while (Date.now() - t < waitMs) {
      if ((await count()) >= okIds.length) {
        settledAfterS = (Date.now() - t) / 1000;
        break;
      }
      await sleep(250);
    }
    // Anything still on its way (a bill too many) gets a moment to show up.
    await sleep(500);
    const rows = await sql<{ reference_id: string | null; journaled: boolean | null }[]>`
      select l.reference_id, l.created_at > r.completed_at as journaled
      from ledger_entries l left join runs r on r.id = l.metadata->>'run_id'
      where l.company_id = ${companyId} and l.kind = 'completion'`;
    const runs = await sql<
      { status: string; n: string }[]
    >`select status::text, count(*)::text as n from runs where company_id = ${companyId} group by status`;
    const held = async () => {
      const [r] = await sql<{ rows: string; micro: string; balance: string }[]>`
        select count(*)::text as rows, coalesce(sum(amount_micro), 0)::text as micro,
               (select balance_micro::text from companies where id = ${companyId}) as balance
        from reservations where company_id = ${companyId} and status = 'held'`;
      return { rows: Number(r!.rows), micro: Number(r!.micro), balanceMicro: Number(r!.balance) };
    };
    let heldAfterLoad = await held();
    for (
      const until = Date.now() + LEASE_WAIT_MS;
      heldAfterLoad.rows > 0 && Date.now() < until;
      heldAfterLoad = await held()
    )
      await sleep(250);
    const seen = new Map<string, number>();
    for (const r of rows) seen.set(r.reference_id ?? "(none)", (seen.get(r.reference_id ?? "(none)") ?? 0) + 1);
    const okSet = new Set(okIds);
    const extra = [...seen.keys()].filter((id) => !okSet.has(id));
    return {
      expected: okIds.length,
      ledgerRows: rows.length,
      recovered: rows.filter((r) => r.journaled).length,
      missing: okIds.filter((id) => !seen.has(id)),
      extra: extra.slice(0, 20),
      extraCount: extra.reduce((n, id) => n + seen.get(id)!, 0),
      billedOthers: extra.filter((id) => otherIds.has(id)).length,
      duplicates: [...seen.entries()].filter(([, n]) => n > 1).map(([id]) => id),
      runsByStatus: Object.fromEntries(runs.map((r) => [r.status, Number(r.n)])),
      settledAfterS,
      heldAfterLoad,
    };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The server's JSON log lines (last 400) counted by level and message: what it said about the outage. */
function serverLogSummary(tail: string): { level: number | string; msg: string; count: number }[] {
  const counts = new Map<string, { level: number | string; msg: string; count: number }>();
  for (const line of tail.split("\n")) {
    let level: number | string = "text";
    let msg = line.slice(0, 160);
    try {
      const j = JSON.parse(line) as { level?: number; msg?: string };
      level = j.level ?? "?";
      msg = j.msg ?? msg;
    } catch {
      // not a pino line
    }
    const k = `${level} ${msg}`;
    const c = counts.get(k) ?? { level, msg, count: 0 };
    c.count++;
    counts.set(k, c);
  }
  return [...counts.values()].sort((a, b) => b.count - a.count);
}

export async function runDbFaultBench(options: DbFaultOptions = {}): Promise<DbFaultResult> {
  const durationS = options.durationS ?? 60;
  const cutForS = options.cutForS ?? 10;
  const o = {
    durationS,
    clients: options.clients ?? 20,
    cutForS,
    cutAtS: options.cutAtS ?? Math.max(0, (durationS - cutForS) / 2),
    faultMode: options.faultMode ?? "down",
    backoffMs: options.backoffMs ?? 100,
    bucketS: options.bucketS ?? 5,
    quietWaitS: options.quietWaitS ?? 10,
    isolatedBuild: options.isolatedBuild ?? false,
    rebuild: options.rebuild ?? false,
    databaseUrl: options.databaseUrl ?? (process.env.DATABASE_URL || undefined),
    databaseInPlace: options.databaseInPlace ?? false,
    name: options.name ?? "db-fault",
  };
  if (!FAULT_MODES.includes(o.faultMode)) throw new Error(`--fault-mode must be one of ${FAULT_MODES.join(", ")}`);
  if (o.cutAtS + o.cutForS > o.durationS)
    throw new Error(`the cut (${o.cutAtS} s + ${o.cutForS} s) must end within the run (${o.durationS} s)`);
  const startedAt = new Date();
  const log = (m: string) =>
    process.stderr.write(`[bench:db-fault +${Math.round((Date.now() - startedAt.getTime()) / 1000)}s] ${m}\n`);
  const { stack: cleanups, runAll: runCleanups } = cleanupStack(log);

  const errors: string[] = [];
  const invalid: string[] = [];
  const answers: Answer[] = [];
  const ready: [number, number][] = [];
  let build: BuildInfo | undefined;
  let db: BenchDatabase | undefined;
  let bills: Bills | null = null;
  let cutStartMs = Number.NaN;
  let cutEndMs = Number.NaN;
  let loadEndMs = Number.NaN;
  let busyPct: number | null = null;
  /** Cores used during the load: the server's process tree, this process (clients + proxy), the fake upstream. */
  let cores: { server: number; benchProcess: number; upstream: number } | null = null;
  let quiet: { waitedMs: number; busy: number | null } = { waitedMs: 0, busy: null };
  let logSummary: ReturnType<typeof serverLogSummary> = [];

  try {
    const prepared = await prepareBuild({ isolated: o.isolatedBuild, force: o.rebuild });
    cleanups.push({ name: "isolated build", fn: async () => prepared.cleanup() });
    build = prepared.build;
    if (build.newerSources.length && !o.isolatedBuild) {
      log(
        `WARNING: ${build.newerSources.length} source file(s) changed after the build (e.g. ${build.newerSources.slice(0, 3).join(", ")}); numbers are for the build`,
      );
    }
    if (o.databaseInPlace && !o.databaseUrl) throw new Error("--database-in-place needs DATABASE_URL");
    db = o.databaseInPlace ? await useDatabase(o.databaseUrl!) : await provisionDatabase({ serverUrl: o.databaseUrl });
    cleanups.push({ name: "database", fn: () => db!.cleanup() });

    const companyId = await createCompany(db.url, "Bench db fault");
    const [, keys] = await Promise.all([
      admin(db.url, [
        "credits",
        "grant",
        "--company",
        companyId,
        "--amount",
        String(CREDITS_OT),
        "--note",
        "db-fault bench",
      ]),
      createKeys(db.url, companyId, KEY_COUNT, KEY_COUNT),
    ]);

    const up: Upstream = await startUpstream();
    cleanups.push({
      name: "fake upstream",
      fn: async () => {
        up.rss.stop();
        await up.service.stop();
      },
    });
    const target = new URL(db.url);
    // TCP_NODELAY as postgres.js's own socket: the proxy must cost nothing until the cut.
    const proxy: TcpProxy = await startTcpProxy(target.hostname, Number(target.port || 5432), { noDelay: true });
    cleanups.push({ name: "tcp proxy", fn: () => proxy.close() });

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-bench-data-"));
    cleanups.push({ name: "data dir", fn: async () => fs.rmSync(dataDir, { recursive: true, force: true }) });
    const t = Date.now();
    const server: NextServer = await startNext({
      env: { ...appEnv(proxy.url(db.url), dataDir), OPENAI_BASE_URL: up.openaiBase, OPENAI_API_KEY: "sk-bench" },
      appRoot: prepared.appRoot,
    });
    cleanups.push({ name: "server", fn: () => server.stop() });
    log(
      `server pid ${server.pid} on ${server.baseUrl} (PostgreSQL through the proxy on :${proxy.port}), healthy after ${Date.now() - t} ms`,
    );

    const url = new URL(`${server.baseUrl}${PATH}`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: o.clients });
    cleanups.push({ name: "agent", fn: async () => agent.destroy() });
    const keyOf = (client: number) => keys[client % keys.length]!.secret;

    // Warm-up: one call per client (key cache, credit lease, rate-limit grants, connections);
    // billed like the rest, so part of the bill count.
    const warmT0 = Date.now();
    const warm = await Promise.all(
      Array.from({ length: o.clients }, (_, c) => call(url, agent, keyOf(c), c % 2 === 1, -1 - c, c, warmT0)),
    );
    for (const a of warm) answers.push({ ...a, warmup: true, startMs: Number.NaN, endMs: Number.NaN });
    const warmBad = warm.filter((a) => classify(a) !== "ok");
    if (warmBad.length)
      throw new Error(
        `warm-up: ${warmBad.length} of ${warm.length} calls not answered 200 (${otherKind(warmBad[0]!)} ${warmBad[0]!.body ?? ""})\n${server.logTail(20)}`,
      );

    if (o.quietWaitS > 0) {
      quiet = await waitForQuiet(0.3, o.quietWaitS * 1000);
      if (quiet.waitedMs > 1_500)
        log(
          `waited ${Math.round(quiet.waitedMs / 1000)} s for unrelated load to drop (busy ${fmt(quiet.busy, 2)} cores)`,
        );
    }

    log(
      `${o.clients} clients (half streaming) for ${o.durationS} s; PostgreSQL cut (${o.faultMode}) at ${o.cutAtS} s for ${o.cutForS} s`,
    );
    const machine0 = machineCpu();
    const serverCpu0 = cpuTicksOf(processTree(server.pid));
    const upstreamCpu0 = cpuTicksOf([up.service.pid]);
    const selfCpu0 = process.cpuUsage();
    const t0 = Date.now();
    const endAt = t0 + o.durationS * 1000;
    const fault = (async () => {
      await sleep(t0 + o.cutAtS * 1000 - Date.now());
      if (o.faultMode === "down") proxy.disable();
      else proxy.pause();
      cutStartMs = Date.now() - t0;
      log(`PostgreSQL cut (${o.faultMode})`);
      await sleep(t0 + (o.cutAtS + o.cutForS) * 1000 - Date.now());
      if (o.faultMode === "down") proxy.enable();
      else proxy.resume();
      cutEndMs = Date.now() - t0;
      log("PostgreSQL restored");
    })();
    const readiness = (async () => {
      while (Date.now() < endAt) {
        const at = Date.now();
        let status = 0;
        try {
          const res = await fetch(`${server.baseUrl}/api/ready`, { signal: AbortSignal.timeout(2_000) });
          await res.arrayBuffer();
          status = res.status;
        } catch {
          // no answer within 2 s: status 0
        }
        ready.push([at - t0, status]);
        await sleep(at + READY_EVERY_MS - Date.now());
      }
    })();
    let n = 0;
    await Promise.all(
      Array.from({ length: o.clients }, async (_, c) => {
        while (Date.now() < endAt) {
          const a = await call(url, agent, keyOf(c), c % 2 === 1, n++, c, t0);
          answers.push(a);
          if (classify(a) !== "ok") await sleep(o.backoffMs);
        }
      }),
    );
    loadEndMs = Date.now() - t0;
    await Promise.all([fault, readiness]);
    busyPct = machineBusyPct(machine0, machineCpu());
    const self = process.cpuUsage(selfCpu0);
    cores = {
      server: cpuMsBetween(serverCpu0, cpuTicksOf(processTree(server.pid))) / loadEndMs,
      benchProcess: (self.user + self.system) / 1000 / loadEndMs,
      upstream: cpuMsBetween(upstreamCpu0, cpuTicksOf([up.service.pid])) / loadEndMs,
    };
    log(
      `load over after ${fmt(loadEndMs / 1000, 1)} s: ${answers.length} calls; waiting up to ${BILL_WAIT_MS / 1000} s for the bills`,
    );
    if (server.exited()) invalid.push(`the server exited during the run\n${server.logTail()}`);
    else {
      bills = await countBills(db.url, companyId, answers, BILL_WAIT_MS);
      log(
        `bills: ${bills.ledgerRows} completion ledger rows for ${bills.expected} 200s (${bills.recovered} from the journal)`,
      );
    }
    logSummary = serverLogSummary(server.logTail(400));
  } catch (err) {
    errors.push((err as Error).stack ?? String(err));
    log(`ERROR: ${(err as Error).message}`);
  } finally {
    await runCleanups();
  }

  // --- report ------------------------------------------------------------------------------------
  const timed = answers.filter((a) => !a.warmup);
  const cls = (c: Class) => timed.filter((a) => classify(a) === c);
  const ok = cls("ok");
  const unavailable = cls("unavailable");
  const others = cls("other");
  const otherKinds: Record<string, number> = {};
  for (const a of others) otherKinds[otherKind(a)] = (otherKinds[otherKind(a)] ?? 0) + 1;
  const statuses: Record<string, number> = {};
  for (const a of timed) statuses[a.status || "none"] = (statuses[a.status || "none"] ?? 0) + 1;
  const latency = (a: Answer) => a.endMs - a.startMs;
  const max503Ms = unavailable.length ? Math.max(...unavailable.map(latency)) : null;
  const noRetryAfter = unavailable.filter((a) => !/^\d+$/.test(a.retryAfter ?? "")).length;
  const duringCut = timed.filter((a) => a.endMs >= cutStartMs && a.startMs < cutEndMs);
  const maxDuringCutMs = duringCut.length ? Math.max(...duringCut.map(latency)) : null;
  const firstOkAfter = ok.filter((a) => a.endMs >= cutEndMs).sort((a, b) => a.endMs - b.endMs)[0];
  const firstOkAfterCutMs = firstOkAfter ? firstOkAfter.endMs - cutEndMs : null;
  const lastOkBefore = ok.filter((a) => a.endMs < cutStartMs).sort((a, b) => b.endMs - a.endMs)[0];
  const first503 = unavailable.filter((a) => a.endMs >= cutStartMs).sort((a, b) => a.endMs - b.endMs)[0];
  const readyDown = ready.find(([at, s]) => at >= cutStartMs && s !== 200);
  const readyUp = ready.find(([at, s]) => at >= cutEndMs && s === 200);
  const okBillable = answers.filter((a) => classify(a) === "ok").length;

  if (!errors.length && !Number.isNaN(cutStartMs) && !ok.some((a) => a.endMs < cutStartMs))
    invalid.push("no call was answered 200 before the cut");
  if (bills) {
    if (bills.ledgerRows !== bills.expected)
      invalid.push(
        `bills: ${bills.ledgerRows} completion ledger rows for ${bills.expected} answers 200 (${bills.recovered} written from the journal)`,
      );
    if (bills.missing.length)
      invalid.push(
        `bills: ${bills.missing.length} answers 200 without a bill, e.g. ${bills.missing.slice(0, 5).join(", ")}`,
      );
    if (bills.extraCount)
      invalid.push(
        `bills: ${bills.extraCount} bills for no answer 200 (${bills.billedOthers} of answers counted as other), e.g. ${bills.extra.slice(0, 5).join(", ")}`,
      );
    if (bills.duplicates.length)
      invalid.push(
        `bills: ${bills.duplicates.length} answers billed more than once, e.g. ${bills.duplicates.slice(0, 5).join(", ")}`,
      );
  }

  const endMs = Math.max(loadEndMs || 0, ...timed.map((a) => a.endMs));
  const phases = Number.isNaN(cutEndMs)
    ? []
    : [
        phaseStats("before the cut", timed, 0, cutStartMs),
        phaseStats(`during the cut (${o.faultMode})`, timed, cutStartMs, cutEndMs),
        phaseStats("after the cut", timed, cutEndMs, endMs),
      ];
  const seconds = Math.ceil(endMs / 1000);
  const perSecond = Array.from({ length: seconds }, (_, s) => {
    const inS = timed.filter((a) => Math.floor(a.endMs / 1000) === s);
    const lat = inS.map(latency).sort((x, y) => x - y);
    const c = (k: Class) => inS.filter((a) => classify(a) === k).length;
    return {
      s,
      ok: c("ok"),
      unavailable: c("unavailable"),
      other: c("other"),
      p50Ms: percentile(lat, 0.5),
      p99Ms: percentile(lat, 0.99),
    };
  });

  const verdicts: Verdict[] = [
    {
      name: "503s answered fast, with Retry-After: slowest 503",
      value: max503Ms,
      unit: "ms",
      target: `< ${TARGET_503_MS} ms, all with Retry-After`,
      result: max503Ms === null ? "n/a" : max503Ms < TARGET_503_MS && noRetryAfter === 0 ? "PASS" : "MISS",
    },
    {
      name: "first 200 after the cut ended",
      value: firstOkAfterCutMs,
      unit: "ms",
      target: `< ${TARGET_FIRST_200_MS} ms`,
      result:
        firstOkAfterCutMs === null
          ? Number.isNaN(cutEndMs)
            ? "n/a"
            : "MISS"
          : firstOkAfterCutMs < TARGET_FIRST_200_MS
            ? "PASS"
            : "MISS",
    },
    {
      name: "other answers (500s, broken streams, transport errors, hangs)",
      value: errors.length ? null : others.length,
      unit: "",
      target: "0",
      result: errors.length ? "n/a" : others.length === 0 ? "PASS" : "MISS",
    },
    {
      name: "completion ledger rows − answers 200",
      value: bills ? bills.ledgerRows - bills.expected : null,
      unit: "",
      target: "0 (and the same ids)",
      result: !bills
        ? "n/a"
        : bills.ledgerRows === bills.expected && !bills.missing.length && !bills.extraCount && !bills.duplicates.length
          ? "PASS"
          : "MISS",
    },
  ];

  const phaseOf = (from: number, to: number) =>
    to <= cutStartMs
      ? ""
      : from >= cutEndMs
        ? from < cutEndMs + o.bucketS * 1000
          ? "restored"
          : ""
        : from >= cutStartMs && to <= cutEndMs
          ? "CUT"
          : "cut";
  // The last bucket also takes the answers of calls still in flight when the load stopped.
  const bucketCount = Math.max(1, Math.ceil(o.durationS / o.bucketS));
  const buckets = Array.from({ length: bucketCount }, (_, b) => {
    const from = b * o.bucketS * 1000;
    const to = b === bucketCount - 1 ? Math.max(endMs + 1, from + 1) : (b + 1) * o.bucketS * 1000;
    const inB = timed.filter((a) => a.endMs >= from && a.endMs < to);
    const lat = inB.map(latency).sort((x, y) => x - y);
    const c = (k: Class) => inB.filter((a) => classify(a) === k).length;
    const secs = Math.max(0.001, (to - from) / 1000);
    return [
      `${fmt(from / 1000, 0)}–${fmt(Math.min(to, o.durationS * 1000) / 1000, 0)} s`,
      phaseOf(from, to),
      String(c("ok")),
      fmt(c("ok") / secs, 0),
      String(c("unavailable")),
      String(c("other")),
      fmt(percentile(lat, 0.5), 1),
      fmt(percentile(lat, 0.99), 1),
      fmt(lat.at(-1), 0),
    ];
  });
  const bucketTable = renderTable(
    ["t (answer end)", "db", "200", "200/s", "503", "other", "p50 ms", "p99 ms", "max ms"],
    buckets,
  );
  const phaseTable = renderTable(
    ["phase", "from s", "to s", "200", "200/s", "answers/s", "503", "other", "p50 ms", "p99 ms", "max ms"],
    phases.map((p) => [
      p.name,
      fmt(p.fromS, 1),
      fmt(p.toS, 1),
      String(p.ok),
      fmt(p.okPerS, 0),
      fmt(p.answersPerS, 0),
      String(p.unavailable),
      String(p.other),
      fmt(p.p50Ms, 1),
      fmt(p.p99Ms, 1),
      fmt(p.maxMs, 0),
    ]),
  );
  const verdictTable = renderTable(
    ["goal", "value", "target", "result"],
    verdicts.map((v) => [
      v.name,
      v.value === null ? "-" : `${fmt(v.value, 0)}${v.unit ? ` ${v.unit}` : ""}`,
      v.target,
      v.result,
    ]),
  );
  const ms = (v: number | null | undefined) =>
    v === null || v === undefined || Number.isNaN(v) ? "-" : `${fmt(v, 0)} ms`;
  const summary = [
    `calls: ${timed.length} (+ ${answers.length - timed.length} warm-up); 200 ${ok.length}, 503 ${unavailable.length} (${noRetryAfter} without Retry-After), other ${others.length}${others.length ? ` ${JSON.stringify(otherKinds)}` : ""}`,
    `cut: ${ms(cutStartMs)} → ${ms(cutEndMs)} (${o.faultMode}); last 200 before it ${lastOkBefore ? ms(cutStartMs - lastOkBefore.endMs) : "-"} before, first 503 ${first503 ? ms(first503.endMs - cutStartMs) : "-"} after it began; slowest answer of a call in flight during the cut ${ms(maxDuringCutMs)}`,
    `readiness (/api/ready every ${READY_EVERY_MS} ms): not ready ${readyDown ? ms(readyDown[0] - cutStartMs) : "-"} after the cut began, ready ${readyUp ? ms(readyUp[0] - cutEndMs) : "-"} after it ended`,
    bills
      ? `bills: ${bills.ledgerRows} completion ledger rows for ${bills.expected} answers 200 (${okBillable - ok.length} of them warm-up); ${bills.recovered} written from the bill journal after the database returned; missing ${bills.missing.length}, extra ${bills.extraCount}, duplicate ${bills.duplicates.length}; all rows there ${bills.settledAfterS === null ? `NOT within ${BILL_WAIT_MS / 1000} s` : `${fmt(bills.settledAfterS, 1)} s after the load`}; runs ${JSON.stringify(bills.runsByStatus)}; ` +
        `credit leases still held after waiting up to ${fmt(LEASE_WAIT_MS / 1000, 0)} s more: ${bills.heldAfterLoad.rows} (${fmt(bills.heldAfterLoad.micro / 1e6, 2)} of ${fmt(bills.heldAfterLoad.balanceMicro / 1e6, 0)} O₮)`
      : "bills: not counted",
  ].join("\n");
  const table = `${bucketTable}\n\n${phaseTable}\n\n${summary}\n\n${verdictTable}`;

  const out = process.stdout;
  out.write(`\nDB-fault benchmark — ${startedAt.toISOString()}\n`);
  out.write(
    `db: ${db ? `${db.mode} ${db.name} @ ${db.where}` : "-"}; build ${build?.buildId ?? "-"}${o.isolatedBuild ? " (isolated copy)" : build?.newerSources.length ? ` (STALE: ${build.newerSources.length} newer source files)` : ""}; ` +
      `node ${process.version}, ${os.cpus().length} cpu (${os.cpus()[0]?.model ?? "?"}); box busy ${fmt(busyPct, 0)} %${cores ? ` (cores: server ${fmt(cores.server, 2)}, bench clients + proxy ${fmt(cores.benchProcess, 2)}, fake upstream ${fmt(cores.upstream, 2)})` : ""}; ` +
      `${o.clients} clients (half streaming, ${o.backoffMs} ms pause after a 503) × ${o.durationS} s, model ${MODEL_SLUG} (fake upstream); PostgreSQL cut ${o.faultMode} at ${o.cutAtS} s for ${o.cutForS} s\n\n`,
  );
  out.write(`${table}\n`);
  if (quiet.busy !== null && quiet.busy >= 0.3)
    out.write(
      `\nDISTURBED: ${fmt(quiet.busy, 2)} cores were busy with unrelated work when the run started (waited ${Math.round(quiet.waitedMs / 1000)} s)\n`,
    );
  if (invalid.length) out.write(`\nINVALID RUN:\n  ${invalid.join("\n  ")}\n`);
  if (errors.length) out.write(`\nERRORS:\n  ${errors.join("\n  ")}\n`);

  const record = {
    name: o.name,
    schema: 1,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    valid: invalid.length === 0 && errors.length === 0,
    invalid,
    errors,
    git: {
      commit: git(["rev-parse", "HEAD"]),
      dirtyFiles: Number(git(["status", "--porcelain"])?.split("\n").filter(Boolean).length ?? 0),
    },
    machine: {
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      totalMemMb: Math.round(os.totalmem() / 2 ** 20),
      loadavgAtStart: os.loadavg(),
    },
    build: build ? { ...build, isolated: o.isolatedBuild } : null,
    database: db ? { mode: db.mode, name: db.name, where: db.where } : null,
    settings: {
      ...o,
      databaseUrl: undefined,
      model: MODEL_SLUG,
      keys: KEY_COUNT,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      billWaitMs: BILL_WAIT_MS,
    },
    targets: { max503Ms: TARGET_503_MS, first200AfterCutMs: TARGET_FIRST_200_MS, otherAnswers: 0 },
    verdicts,
    quietWait: quiet,
    machineBusyPct: busyPct,
    cores,
    cut: { mode: o.faultMode, startMs: cutStartMs, endMs: cutEndMs },
    loadEndMs,
    totals: {
      calls: timed.length,
      warmup: answers.length - timed.length,
      ok: ok.length,
      unavailable: unavailable.length,
      other: others.length,
      statuses,
      otherKinds,
      unavailableWithoutRetryAfter: noRetryAfter,
    },
    max503Ms,
    maxLatencyDuringCutMs: maxDuringCutMs,
    firstOkAfterCutMs,
    readiness: {
      notReadyAfterCutStartMs: readyDown ? readyDown[0] - cutStartMs : null,
      readyAfterCutEndMs: readyUp ? readyUp[0] - cutEndMs : null,
      samples: ready,
    },
    phases,
    perSecond,
    bills,
    otherSamples: others.slice(0, 20),
    serverLog: logSummary,
    table,
  };
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const file = path.join(RESULTS_DIR, `${o.name}-${stampForFile(startedAt)}.json`);
  const json = `${JSON.stringify(record, null, 2)}\n`;
  fs.writeFileSync(file, json);
  fs.writeFileSync(path.join(RESULTS_DIR, `${o.name}-latest.json`), json);
  out.write(`\nsaved ${path.relative(ROOT, file)} and bench/results/${o.name}-latest.json\n`);
  return { valid: record.valid, file, table, verdicts };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "60" },
      clients: { type: "string", default: "20" },
      "cut-at": { type: "string" },
      "cut-for": { type: "string", default: "10" },
      "fault-mode": { type: "string", default: "down" },
      "backoff-ms": { type: "string", default: "100" },
      bucket: { type: "string", default: "5" },
      "quiet-wait": { type: "string", default: "10" },
      "database-in-place": { type: "boolean", default: false },
      "isolated-build": { type: "boolean", default: false },
      rebuild: { type: "boolean", default: false },
      name: { type: "string" },
    },
    strict: true,
  });
  runDbFaultBench({
    durationS: Number(values.duration),
    clients: Number(values.clients),
    cutAtS: values["cut-at"] === undefined ? undefined : Number(values["cut-at"]),
    cutForS: Number(values["cut-for"]),
    faultMode: values["fault-mode"] as FaultMode,
    backoffMs: Number(values["backoff-ms"]),
    bucketS: Number(values.bucket),
    quietWaitS: Number(values["quiet-wait"]),
    databaseInPlace: values["database-in-place"],
    isolatedBuild: values["isolated-build"],
    rebuild: values.rebuild,
    name: values.name,
  })
    .then((r) => process.exit(r.valid ? 0 : 1))
    .catch((err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    });
}
