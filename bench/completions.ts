/**
 * Chat-completions benchmark: gateway overhead for non-streaming and streaming completions, in one
 * run, with autocannon against the same fake upstream on loopback:
 *
 *   direct  straight to the fake upstream (the floor)
 *   ours    this gateway as `npm start` runs it (scripts/server/main.mjs: the production build served
 *           by Next.js, chat completions through the fast lane), with key auth, the per-key rate
 *           limit, credit reservation, persistence (thread, messages, run) and billing (ledger) on
 *   routed  the same server with FAST_LANE=0: chat completions through Next.js's router like every
 *           other route (what the fast lane saves; its own company, not in the ledger check)
 *   peer    the Portkey open-source gateway (headless), x-portkey-provider: openai +
 *           x-portkey-custom-host pointing at the same fake upstream
 *
 * The fake upstream (test/support/fake-upstream.ts, fixed reply, usage 20 + 15 tokens) runs in its
 * own process (bench/fake-upstream-server.ts) so its CPU is not mixed with a gateway's.
 *
 * Per target × mode (json | stream) × connections (1, 32): req/s, p50/p99 latency (whole response),
 * CPU ms per request of the gateway process tree (/proc utime+stime over the measured window ÷
 * responses), of the fake upstream and (ours) of the PostgreSQL backends, peak RSS of the gateway.
 * Time to first streamed byte: a keep-alive node:http client, sequential streaming requests at 1
 * connection, request start → first body byte (p50/p99). Then a 60 s soak of ours at 32
 * connections (json) sampling RSS every second: start / peak / end and the least-squares slope.
 *
 * Every target is measured `--repeat` times (3), the targets' order rotated each repetition; goals
 * are judged on the median of the per-repetition figures, printed with their spread
 * (bench/lib/completions-verdicts.ts). Goals (reported PASS/MISS, never failing the process) at 32
 * connections: ours' req/s >= 120 % of the peer's with persistence and billing on, gateway CPU per
 * call <= 1.0 ms, streamed calls' write system calls <= the peer's, peak RSS < 250 MiB; at 1
 * connection: added p50 (ours − direct) <= the peer's + 1 ms (< 2 ms without a peer), added time to
 * first streamed byte <= 1.5 ms; RSS flat over the 60 s soak.
 *
 * Runs rows (bench/runs.ts), on ours' server right after its first completions rows, same fake upstream:
 * `POST /v1/threads/{id}/runs` req/s @32c against ours' json req/s (goal >= 90 %), added p50 @1c
 * (< 2.5 ms) and added TTFB (< 2 ms) against the same upstream call sent directly, and what a
 * 5,000-message thread adds over a 20-message one on gpt-3.5-turbo (< 3 ms); a company of their own.
 *
 * Validity (exit 1 standalone / `valid: false` when imported): every load response 2xx, every
 * target's answers checked once in full (reply text, usage), and after ours the bench database has
 * a `completion` ledger row for every 2xx completion (at most the requests cut off in flight when a
 * load run stopped more), proof that persistence and billing were on.
 *
 *   npm run bench:completions [-- --duration 10 --warmup 3 --connections 1,32 --soak 60
 *                                 --ttfb-requests 200 --quiet-wait 5 --targets direct,peer,ours
 *                                 --isolated-build --rebuild --profile --cpu-prof --db-proxy --repeat 3
 *                                 --skip-runs --runs-repeat 5 --runs-requests 200]
 *
 * --profile: ours only, no soak, server under `node --cpu-prof` and its DATABASE_URL through a
 * counting proxy (bench/lib/pg-proxy.ts): prints the top self-time functions and the database
 * statements / round trips per request. The proxy adds a hop: do not read throughput from that run.
 *
 * Database: DATABASE_URL set → a fresh cockpit_bench_<timestamp> database on that server, dropped
 * at the end; unset → an embedded PostgreSQL in a temp dir. Results: bench/results/
 * completions-<timestamp>.json and completions-latest.json.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { admin, createCompany, createKeys, MAX_RPM } from "./lib/admin";
import { summarizeProfile, type ProfileSummary } from "./lib/cpuprofile";
import { summarizeProfileWindows, type WindowedSummary } from "./lib/cpuprofile-window";
import { provisionDatabase, type BenchDatabase } from "./lib/db";
import { matrixVerdicts, MATRIX_TARGETS } from "./lib/completions-verdicts";
import { runLoad, type LoadOptions, type LoadResult } from "./lib/load";
import { waitForQuiet } from "./lib/measure";
import { startPgProxy, type PgProxy, type PgStats } from "./lib/pg-proxy";
import {
  clockTicksPerSecond,
  countBetween,
  cpuMsBetween,
  cpuTicksOf,
  machineBusyPct,
  machineCpu,
  otherProcesses,
  processTree,
  RssSampler,
  rssKb,
  snapshotAll,
  sysTicksOf,
  writeSyscallsOf,
} from "./lib/proc";
import {
  appEnv,
  cleanEnv,
  currentBuildId,
  freePort,
  prepareBuild,
  ROOT,
  runningBuilds,
  startNext,
  waitForHealth,
  type BuildInfo,
  type NextServer,
} from "./lib/server";
import { startService, type Service } from "./lib/service";
import { fmt, renderTable } from "./lib/table";
import { cleanupStack } from "./lib/cleanups";
import { RUN_TARGETS, runRunsRows, runsTables, runsVerdicts, type RunsResult } from "./runs";
import {
  FRONT_DOOR_TARGETS,
  frontDoorTable,
  frontDoorVerdicts,
  runFrontDoorRows,
  type FrontDoorsResult,
} from "./front-doors";
import type { Mode, Row, Target, TargetId, Ttfb, Upstream, Verdict } from "./lib/completions-shapes";

export type { Mode, Row, Target, TargetId, Ttfb, Upstream, Verdict };

// --- settings ------------------------------------------------------------------------------------

export interface CompletionsBenchOptions {
  /** Seconds per measured run (10). */
  durationS?: number;
  /** Seconds of warm-up per target and mode, at the highest connection count (3). */
  warmupS?: number;
  connections?: number[];
  /** Seconds of the RSS soak of ours at the highest connection count, json (60; 0 = skip). */
  soakS?: number;
  /** Sequential streaming requests for time to first byte, per target (200; plus 20 unmeasured). */
  ttfbRequests?: number;
  targets?: TargetId[];
  /** Before each target, wait up to this long for unrelated load to drop below 0.3 cores (5). */
  quietWaitS?: number;
  isolatedBuild?: boolean;
  rebuild?: boolean;
  /** Ours under `node --cpu-prof`; the profile is summarised in the output. */
  cpuProf?: boolean;
  /** Ours' DATABASE_URL through a counting proxy: statements and round trips per request. */
  dbProxy?: boolean;
  /** Extra node flags for ours, after the ones the start script uses (experiments with V8 heap flags). */
  extraNodeArgs?: string[];
  /** PostgreSQL server for the bench database (default process.env.DATABASE_URL; none = embedded). */
  databaseUrl?: string;
  /** Results file prefix (completions). */
  name?: string;
  /** Print progress and the tables (true). */
  print?: boolean;
  /** The runs rows (bench/runs.ts) on ours' server after its completions rows (true). */
  runs?: boolean;
  /** Repetitions of each runs pair (completions/run @32c; direct/run @1c) (5: this machine is shared). */
  runsRepeat?: number;
  /** Sequential requests per runs latency row @1c (200). */
  runsRequests?: number;
  /** The /v1/responses and /v1/messages rows (bench/front-doors.ts) after the runs rows (true); they use the runs' repetitions and requests. */
  frontDoors?: boolean;
  /** How many times each target's rows are measured, the targets' order rotated each time (3). */
  repeat?: number;
}

export interface CompletionsBenchResult {
  valid: boolean;
  file: string | null;
  table: string;
  verdicts: Verdict[];
  record: Record<string, unknown>;
}

export const MODEL_SLUG = "gpt-4.1-mini";
export const UPSTREAM_KEY = "sk-bench";
export const FAKE_REPLY = "Hello! This is the fixed benchmark reply.";
export const FAKE_USAGE = { prompt: 20, completion: 15 };
const MESSAGES = [{ role: "user", content: "Say hello to the benchmark." }];
export const BODIES: Record<Mode, string> = {
  json: JSON.stringify({ model: MODEL_SLUG, messages: MESSAGES }),
  stream: JSON.stringify({
    model: MODEL_SLUG,
    messages: MESSAGES,
    stream: true,
    stream_options: { include_usage: true },
  }),
};
const PATH = "/v1/chat/completions";
const KEY_COUNT = 4;
const CREDITS_OT = 100_000_000;
/**
 * "Flat": the RSS floor (the lowest sample of each FLOOR_WINDOW_S window, i.e. after its
 * collections) rises by less than this many MiB per minute over the soak. Not the slope through
 * every sample, which GC's sawtooth swings either way; a leak shows as a rising floor.
 */
const TARGET_RSS_SLOPE_MIB_PER_MIN = 2;
const FLOOR_WINDOW_S = 10;
const NOISY_OTHER_CORES = 0.25;
const TTFB_WARMUP = 20;
const RESULTS_DIR = path.join(ROOT, "bench/results");
const PORTKEY_START = path.join(ROOT, "node_modules/@portkey-ai/gateway/build/start-server.js");

// --- result shapes -------------------------------------------------------------------------------

export interface Soak {
  durationS: number;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  ok2xx: number;
  non2xx: number;
  errors: number;
  samples: { t: number; rssMb: number }[];
  startMb: number;
  peakMb: number;
  endMb: number;
  /** Least-squares slope over all samples, MiB per minute (swings with the GC cycle; informative). */
  slopeMbPerMin: number;
  /** Least-squares slope of the per-window minima, MiB per minute (the flatness verdict). */
  floorSlopeMbPerMin: number;
  gatewayCpuMsPerReq: number;
  /** RSS split at the end of the soak. */
  endBreakdown: { anonMb: number; fileMb: number; shmemMb: number };
}

// --- helpers -------------------------------------------------------------------------------------

function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Each target once per repetition, the order rotated by one each time (a target is never always first or last). */
function schedule<T>(targets: T[], repeat: number): { id: T; repetition: number }[] {
  const out: { id: T; repetition: number }[] = [];
  for (let r = 0; r < repeat; r++)
    for (let i = 0; i < targets.length; i++) out.push({ id: targets[(i + r) % targets.length]!, repetition: r + 1 });
  return out;
}

function stampForFile(d: Date): string {
  return d.toISOString().replaceAll(":", "-");
}

function git(args: string[]): string | null {
  try {
    return execFileSync("git", args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return null;
  }
}

/** RSS split of a process tree from /proc/<pid>/status: anonymous (heaps), file-backed (code, mapped files), shared memory; MiB. */
export function rssBreakdown(rootPid: number): { anonMb: number; fileMb: number; shmemMb: number } {
  const out = { anonMb: 0, fileMb: 0, shmemMb: 0 };
  for (const pid of processTree(rootPid)) {
    let status = "";
    try {
      status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    } catch {
      continue;
    }
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(status)?.[1] ?? 0);
    out.anonMb += kb("RssAnon") / 1024;
    out.fileMb += kb("RssFile") / 1024;
    out.shmemMb += kb("RssShmem") / 1024;
  }
  return out;
}

/** Least-squares slope through the minimum of each `windowS` window (see TARGET_RSS_SLOPE_MIB_PER_MIN). */
function floorSlopePerMin(samples: { t: number; rssMb: number }[], windowS = FLOOR_WINDOW_S): number {
  const floors = new Map<number, { t: number; rssMb: number; n: number }>();
  for (const p of samples) {
    const w = Math.floor(p.t / windowS);
    const cur = floors.get(w) ?? { t: (w + 0.5) * windowS, rssMb: p.rssMb, n: 0 };
    cur.rssMb = Math.min(cur.rssMb, p.rssMb);
    cur.n++;
    floors.set(w, cur);
  }
  // A window cut short at the end holds too few samples to contain its GC trough.
  const full = Math.max(...[...floors.values()].map((f) => f.n));
  return slopePerMin([...floors.values()].filter((f) => f.n >= full * 0.8));
}

function slopePerMin(samples: { t: number; rssMb: number }[]): number {
  const n = samples.length;
  if (n < 2) return Number.NaN;
  const mt = samples.reduce((s, p) => s + p.t, 0) / n;
  const mr = samples.reduce((s, p) => s + p.rssMb, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of samples) {
    num += (p.t - mt) * (p.rssMb - mr);
    den += (p.t - mt) ** 2;
  }
  return den ? (num / den) * 60 : Number.NaN;
}

/** The fake upstream (bench/fake-upstream-server.ts) in its own process; also used by bench/db-fault.ts. */
export async function startUpstream(): Promise<Upstream> {
  const service = startService(
    "fake upstream",
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(ROOT, "bench/fake-upstream-server.ts"),
      "--reply",
      FAKE_REPLY,
      "--prompt-tokens",
      String(FAKE_USAGE.prompt),
      "--completion-tokens",
      String(FAKE_USAGE.completion),
    ],
    {
      cwd: ROOT,
      env: cleanEnv({ NODE_ENV: "production" }),
    },
  );
  try {
    const line = await service.waitForLine(/^\{.*"openaiBase"/, 30_000);
    const info = JSON.parse(line) as { url: string; openaiBase: string; control: string };
    const rss = new RssSampler(service.pid).start();
    return {
      service,
      ...info,
      rss,
      async stats() {
        const res = await fetch(`${info.control}/stats`);
        return (await res.json()) as { total: number; byPath: Record<string, number>; aborted: number };
      },
    };
  } catch (err) {
    await service.stop().catch(() => {});
    throw err;
  }
}

async function startPortkey(): Promise<{ service: Service; baseUrl: string }> {
  const port = await freePort();
  const service = startService("portkey", process.execPath, [PORTKEY_START, `--port=${port}`, "--headless"], {
    cwd: ROOT,
    env: cleanEnv({ NODE_ENV: "production" }),
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(`${baseUrl}/`, 30_000, () => service.exited());
  } catch (err) {
    await service.stop().catch(() => {});
    throw new Error(`${(err as Error).message}\n--- portkey log ---\n${service.logTail()}`);
  }
  return { service, baseUrl };
}

/** One request with the given body; throws unless the answer is the fake upstream's, in full. */
async function checkAnswer(t: Target, mode: Mode): Promise<void> {
  const res = await fetch(`${t.baseUrl}${PATH}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...t.headers, ...(t.rotate?.[0] ?? {}) },
    body: BODIES[mode],
  });
  const text = await res.text();
  const fail = (why: string) => new Error(`${t.label} ${mode}: ${why}: HTTP ${res.status} ${text.slice(0, 600)}`);
  if (res.status !== 200) throw fail("not 200");
  let content = "";
  let usage: { prompt_tokens?: number; completion_tokens?: number } | undefined;
  if (mode === "json") {
    const body = JSON.parse(text) as { choices?: { message?: { content?: string } }[]; usage?: typeof usage };
    content = body.choices?.[0]?.message?.content ?? "";
    usage = body.usage;
  } else {
    const frames = text
      .split("\n\n")
      .map((f) => f.trim())
      .filter(Boolean);
    if (frames.at(-1) !== "data: [DONE]") throw fail("stream does not end with [DONE]");
    for (const f of frames.slice(0, -1)) {
      const chunk = JSON.parse(f.replace(/^data: /, "")) as {
        choices?: { delta?: { content?: string } }[];
        usage?: typeof usage;
      };
      content += chunk.choices?.[0]?.delta?.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
  }
  if (content !== FAKE_REPLY) throw fail(`content ${JSON.stringify(content)} is not the fake upstream's reply`);
  if (usage?.prompt_tokens !== FAKE_USAGE.prompt || usage?.completion_tokens !== FAKE_USAGE.completion)
    throw fail(`usage ${JSON.stringify(usage)}`);
}

interface OneTiming {
  status: number;
  headersMs: number;
  firstByteMs: number;
  totalMs: number;
  text: string;
}

function timedRequest(agent: http.Agent, url: URL, headers: Record<string, string>, body: string): Promise<OneTiming> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request({
      agent,
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: "POST",
      headers: { ...headers, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
    });
    req.setTimeout(10_000, () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    req.on("response", (res) => {
      const headersMs = performance.now() - t0;
      let firstByteMs = Number.NaN;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => {
        if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - t0;
        chunks.push(c);
      });
      res.on("error", reject);
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headersMs,
          firstByteMs,
          totalMs: performance.now() - t0,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    req.end(body);
  });
}

/**
 * Time to first streamed byte: `n` sequential streaming requests on one keep-alive connection;
 * by default the chat-completions stream body, else `req` (request `i` to `req.path(i)`).
 */
export async function measureTtfb(
  t: Target,
  n: number,
  warmup = TTFB_WARMUP,
  req?: { path: (i: number) => string; body: string },
): Promise<Ttfb> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL(`${t.baseUrl}${PATH}`);
  const first: number[] = [];
  const heads: number[] = [];
  const totals: number[] = [];
  let ok = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  try {
    for (let i = 0; i < warmup + n; i++) {
      const headers = { ...t.headers, ...(t.rotate ? t.rotate[i % t.rotate.length] : {}) };
      try {
        const r = req
          ? await timedRequest(agent, new URL(`${t.baseUrl}${req.path(i)}`), headers, req.body)
          : await timedRequest(agent, url, headers, BODIES.stream);
        const good = r.status === 200 && r.text.trimEnd().endsWith("data: [DONE]");
        if (good) ok++;
        else {
          failures++;
          firstFailure ??= `HTTP ${r.status} ${r.text.slice(0, 300)}`;
        }
        if (i >= warmup && good) {
          first.push(r.firstByteMs);
          heads.push(r.headersMs);
          totals.push(r.totalMs);
        }
      } catch (err) {
        failures++;
        firstFailure ??= (err as Error).message;
      }
    }
  } finally {
    agent.destroy();
  }
  const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
  const f = sorted(first);
  return {
    target: t.id,
    label: t.label,
    n: first.length,
    ok,
    failures,
    firstFailure,
    p50: percentile(f, 0.5),
    p99: percentile(f, 0.99),
    mean: f.length ? f.reduce((s, v) => s + v, 0) / f.length : Number.NaN,
    headersP50: percentile(sorted(heads), 0.5),
    totalP50: percentile(sorted(totals), 0.5),
  };
}

async function dbPids(db: BenchDatabase | undefined): Promise<number[]> {
  if (!db) return [];
  if (db.postmasterPid) return processTree(db.postmasterPid);
  try {
    return await db.backendPids();
  } catch {
    return [];
  }
}

function loadSpec(t: Target, mode: Mode, connections: number, durationS: number): LoadOptions {
  return {
    url: `${t.baseUrl}${PATH}`,
    method: "POST" as const,
    headers: { "content-type": "application/json", ...t.headers },
    body: BODIES[mode],
    rotateHeaders: t.rotate,
    connections,
    durationS,
    pipelining: 1,
  };
}

/**
 * One measured autocannon run with CPU / RSS accounting of gateway, upstream and database; `spec`
 * replaces the chat-completions request (the runs rows).
 */
export async function measureRun(
  t: Target,
  up: Upstream,
  mode: Mode,
  connections: number,
  durationS: number,
  warmupS: number,
  quietWaitMs: number,
  spec?: LoadOptions,
): Promise<Row> {
  const gwBefore = t.pid ? processTree(t.pid) : [];
  const upPids = processTree(up.service.pid);
  const dbBeforePids = await dbPids(t.db);
  const gwTicks0 = cpuTicksOf(gwBefore);
  const gwSys0 = sysTicksOf(gwBefore);
  const gwWrites0 = writeSyscallsOf(gwBefore);
  const upTicks0 = cpuTicksOf(upPids);
  const dbTicks0 = cpuTicksOf(dbBeforePids);
  const upCount0 = (await up.stats()).total;
  const machine0 = machineCpu();
  const all0 = snapshotAll();
  const self0 = process.cpuUsage();
  t.rss?.resetPeak();
  up.rss.resetPeak();
  t.proxy?.reset();
  const t0 = performance.now();
  const hr0 = process.hrtime.bigint();

  const result = await runLoad(spec ?? loadSpec(t, mode, connections, durationS));

  const hr1 = process.hrtime.bigint();
  const wallMs = performance.now() - t0;
  const self = process.cpuUsage(self0);
  const machine1 = machineCpu();
  const all1 = snapshotAll();
  const gwAfter = t.pid ? [...new Set([...gwBefore, ...processTree(t.pid)])] : [];
  const gwMs = cpuMsBetween(gwTicks0, cpuTicksOf(gwAfter));
  const gwSysMs = cpuMsBetween(gwSys0, sysTicksOf(gwAfter));
  const gwWrites = countBetween(gwWrites0, writeSyscallsOf(gwAfter));
  const upMs = cpuMsBetween(upTicks0, cpuTicksOf(upPids));
  const dbAllPids = [...new Set([...dbBeforePids, ...(await dbPids(t.db))])];
  const dbMs = t.db ? cpuMsBetween(dbTicks0, cpuTicksOf(dbAllPids)) : null;
  const pg = t.proxy?.stats();
  t.rss?.sample();
  up.rss.sample();
  const upCount1 = (await up.stats()).total;
  const reqs = Math.max(1, result.total);
  const selfMs = (self.user + self.system) / 1000;
  const busyMs = machine0 && machine1 ? ((machine1.busy - machine0.busy) / clockTicksPerSecond()) * 1000 : null;
  const ours = new Set([...gwAfter, ...upPids, ...dbAllPids, process.pid]);
  return {
    target: t.id,
    label: t.label,
    mode,
    warmupS,
    ...result,
    gatewayCpuMsPerReq: t.pid ? gwMs / reqs : null,
    gatewayCpuCores: t.pid ? gwMs / wallMs : null,
    gatewaySysShare: t.pid && gwMs > 0 ? gwSysMs / gwMs : null,
    gatewayWritesPerReq: t.pid ? gwWrites / reqs : null,
    upstreamCpuMsPerReq: upMs / reqs,
    dbCpuMsPerReq: dbMs === null ? null : dbMs / reqs,
    loadgenCpuMsPerReq: selfMs / reqs,
    peakRssMb: t.rss ? t.rss.peakMb() : null,
    upstreamPeakRssMb: up.rss.peakMb(),
    upstreamRequests: upCount1 - upCount0,
    machineBusyPct: machineBusyPct(machine0, machine1),
    otherCores: busyMs === null ? null : Math.max(0, busyMs - gwMs - upMs - (dbMs ?? 0) - selfMs) / wallMs,
    otherTop: otherProcesses(all0, all1, ours, wallMs),
    quietWaitMs,
    windowNs: [String(hr0), String(hr1)],
    ...(pg ? { db: dbPerReq(pg, reqs) } : {}),
  };
}

function dbPerReq(pg: PgStats, reqs: number): NonNullable<Row["db"]> {
  return {
    statementsPerReq: pg.statements / reqs,
    syncsPerReq: pg.syncs / reqs,
    writesPerReq: pg.writes / reqs,
    waitMsPerReq: pg.waitMs / reqs,
    busyMsPerReq: pg.busyMs / reqs,
    byStatementPerReq: Object.entries(pg.byStatement)
      .map(([sql, n]) => ({ sql, perReq: n / reqs, waitMsPerReq: (pg.waitMsByStatement[sql] ?? 0) / reqs }))
      .sort((a, b) => b.perReq - a.perReq)
      .slice(0, 15),
  };
}

// --- the benchmark -------------------------------------------------------------------------------

export async function runCompletionsBench(options: CompletionsBenchOptions = {}): Promise<CompletionsBenchResult> {
  const o = {
    durationS: options.durationS ?? 10,
    warmupS: options.warmupS ?? 3,
    connections: options.connections ?? [1, 32],
    soakS: options.soakS ?? 60,
    ttfbRequests: options.ttfbRequests ?? 200,
    targets: options.targets ?? (["direct", "peer", "ours", "routed"] as TargetId[]),
    quietWaitS: options.quietWaitS ?? 5,
    isolatedBuild: options.isolatedBuild ?? false,
    rebuild: options.rebuild ?? false,
    cpuProf: options.cpuProf ?? false,
    dbProxy: options.dbProxy ?? false,
    extraNodeArgs: options.extraNodeArgs ?? [],
    databaseUrl: options.databaseUrl ?? (process.env.DATABASE_URL || undefined),
    name: options.name ?? "completions",
    print: options.print ?? true,
    runs: options.runs ?? true,
    runsRepeat: options.runsRepeat ?? 5,
    runsRequests: options.runsRequests ?? 200,
    frontDoors: options.frontDoors ?? true,
    repeat: options.repeat ?? 3,
  };
  const startedAt = new Date();
  const log = (m: string) => {
    if (o.print)
      process.stderr.write(`[bench:completions +${Math.round((Date.now() - startedAt.getTime()) / 1000)}s] ${m}\n`);
  };
  // The checkout's state when the run starts (the isolated copy, if any, is taken right after).
  const gitAtStart = {
    commit: git(["rev-parse", "HEAD"]),
    dirtyFiles: git(["status", "--porcelain"])?.split("\n").filter(Boolean) ?? [],
  };
  const lowC = Math.min(...o.connections);
  const highC = Math.max(...o.connections);

  const { stack: cleanups, runAll: runCleanups } = cleanupStack(log);

  const rows: Row[] = [];
  const ttfbs: Ttfb[] = [];
  let soak: Soak | null = null;
  const errors: string[] = [];
  const invalid: string[] = [];
  const profiles: ProfileSummary[] = [];
  const windowed: (WindowedSummary & { mode: Mode; connections: number; label?: string })[] = [];
  let oursLogTail = "";
  let build: BuildInfo | undefined;
  let appRoot = ROOT;
  let db: BenchDatabase | undefined;
  let ledger: {
    completionRows: number;
    expected2xx: number;
    cutOffAllowance: number;
    runsByStatus: Record<string, number>;
    upstreamRequests: number;
  } | null = null;
  let runs: RunsResult | null = null;
  let frontDoors: FrontDoorsResult | null = null;
  /** Status counts of the runs company's runs once ours stopped. */
  let runsByStatus: Record<string, number> | null = null;
  const gatewayPeaks: Record<string, number> = {};
  /** RSS of each gateway right after it answered its health check, before any completion. */
  const idleRss: Record<string, number> = {};
  const idleBreakdown: Record<string, ReturnType<typeof rssBreakdown>> = {};

  try {
    const needOurs = o.targets.includes("ours") || o.targets.includes("routed");
    if (needOurs) {
      const prepared = await prepareBuild({ isolated: o.isolatedBuild, force: o.rebuild });
      cleanups.push({ name: "isolated build", fn: async () => prepared.cleanup() });
      appRoot = prepared.appRoot;
      build = prepared.build;
      if (build.newerSources.length && !o.isolatedBuild) {
        log(
          `WARNING: ${build.newerSources.length} source file(s) changed after the build (e.g. ${build.newerSources.slice(0, 3).join(", ")}); numbers are for the build`,
        );
      }
    }

    const up = await startUpstream();
    cleanups.push({ name: "fake upstream", fn: () => (up.rss.stop(), up.service.stop()) });
    log(`fake upstream pid ${up.service.pid} at ${up.url}`);

    let oursEnv: Record<string, string> | null = null;
    let keys: Record<string, string>[] = [];
    let routedKeys: Record<string, string>[] = [];
    let oursCompanyId = "";
    let runsCompanyId = "";
    let runsKeys: Record<string, string>[] = [];
    let doorsCompanyId = "";
    let doorsKeys: Record<string, string>[] = [];
    if (needOurs) {
      db = await provisionDatabase({ serverUrl: o.databaseUrl });
      cleanups.push({ name: "database", fn: () => db!.cleanup() });
      // Ours and the routed comparison bill separate companies, so the ledger check counts ours alone.
      // The runs rows bill a third company, also out of the ledger check.
      // The front-door rows bill a fourth, whose ledger they check themselves.
      const [companyId, routedCompanyId, runsCompany, doorsCompany] = await Promise.all([
        createCompany(db.url, "Bench completions"),
        createCompany(db.url, "Bench completions (routed)"),
        o.runs ? createCompany(db.url, "Bench runs") : Promise.resolve(""),
        o.frontDoors ? createCompany(db.url, "Bench front doors") : Promise.resolve(""),
      ]);
      doorsCompanyId = doorsCompany;
      oursCompanyId = companyId;
      runsCompanyId = runsCompany;
      const [, , , , created, createdRouted, createdRuns, createdDoors] = await Promise.all([
        admin(db.url, [
          "credits",
          "grant",
          "--company",
          companyId,
          "--amount",
          String(CREDITS_OT),
          "--note",
          "completions bench",
        ]),
        admin(db.url, [
          "credits",
          "grant",
          "--company",
          routedCompanyId,
          "--amount",
          String(CREDITS_OT),
          "--note",
          "completions bench",
        ]),
        o.runs
          ? admin(db.url, [
              "credits",
              "grant",
              "--company",
              runsCompany,
              "--amount",
              String(CREDITS_OT),
              "--note",
              "runs bench",
            ])
          : null,
        o.frontDoors
          ? admin(db.url, [
              "credits",
              "grant",
              "--company",
              doorsCompany,
              "--amount",
              String(CREDITS_OT),
              "--note",
              "front doors bench",
            ])
          : null,
        createKeys(db.url, companyId, KEY_COUNT),
        createKeys(db.url, routedCompanyId, KEY_COUNT),
        o.runs ? createKeys(db.url, runsCompany, KEY_COUNT) : [],
        o.frontDoors ? createKeys(db.url, doorsCompany, KEY_COUNT) : [],
      ]);
      keys = created.map((k) => ({ authorization: `Bearer ${k.secret}` }));
      routedKeys = createdRouted.map((k) => ({ authorization: `Bearer ${k.secret}` }));
      runsKeys = createdRuns.map((k) => ({ authorization: `Bearer ${k.secret}` }));
      doorsKeys = createdDoors.map((k) => ({ authorization: `Bearer ${k.secret}` }));
      log(`company ${companyId}: ${CREDITS_OT} OT, ${KEY_COUNT} keys (--rpm ${MAX_RPM}) rotated per request`);
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-bench-data-"));
      cleanups.push({ name: "data dir", fn: async () => fs.rmSync(dataDir, { recursive: true, force: true }) });
      oursEnv = {
        ...appEnv(db.url, dataDir),
        OPENAI_BASE_URL: up.openaiBase,
        OPENAI_API_KEY: UPSTREAM_KEY,
      };
    }

    let oursCounted2xx = 0;
    let oursAllowance = 0;
    let oursUpstream0 = 0;
    /** Upstream calls of ours' completions, summed over its starts. */
    let oursUpstream = 0;
    /** Upstream calls of the runs rows (their direct baselines included), not ours' completions. */
    let runsUpstream = 0;

    for (const { id, repetition } of schedule(o.targets, o.repeat)) {
      // --- start the target ---
      let target: Target;
      let stop: () => Promise<void> = async () => {};
      let server: NextServer | undefined;
      let profileDir: string | undefined;
      if (id === "direct") {
        target = {
          id,
          label: "direct (fake upstream)",
          baseUrl: up.url,
          headers: { authorization: `Bearer ${UPSTREAM_KEY}` },
          pid: null,
          rss: null,
        };
      } else if (id === "peer") {
        const pk = await startPortkey();
        const rss = new RssSampler(pk.service.pid).start();
        stop = async () => {
          rss.stop();
          await pk.service.stop();
        };
        target = {
          id,
          label: "peer (Portkey 1.15.2)",
          baseUrl: pk.baseUrl,
          headers: {
            authorization: `Bearer ${UPSTREAM_KEY}`,
            "x-portkey-provider": "openai",
            "x-portkey-custom-host": up.openaiBase,
          },
          pid: pk.service.pid,
          rss,
        };
        log(`peer: portkey pid ${pk.service.pid} on ${pk.baseUrl}`);
      } else {
        const nodeArgs: string[] = [...o.extraNodeArgs];
        if (o.cpuProf) {
          profileDir = path.join(RESULTS_DIR, "profiles", `${stampForFile(startedAt)}-completions`);
          fs.mkdirSync(profileDir, { recursive: true });
          nodeArgs.push("--cpu-prof", `--cpu-prof-dir=${profileDir}`);
        }
        let proxy: PgProxy | undefined;
        const routed = id === "routed";
        let env: Record<string, string> = { ...oursEnv!, FAST_LANE: routed ? "0" : "1" };
        if (o.dbProxy) {
          const u = new URL(db!.url);
          proxy = await startPgProxy({ host: u.hostname, port: Number(u.port || 5432) });
          cleanups.push({ name: "pg proxy", fn: () => proxy!.close() });
          env = { ...env, DATABASE_URL: proxy.rewrite(db!.url) };
        }
        const t = Date.now();
        server = await startNext({ env, nodeArgs, appRoot });
        const s = server;
        const rss = new RssSampler(s.pid).start();
        const entry = { name: "next server", fn: () => (rss.stop(), s.stop()) };
        cleanups.push(entry);
        stop = async () => {
          cleanups.splice(cleanups.indexOf(entry), 1);
          rss.stop();
          await s.stop();
        };
        log(
          `${id}: server pid ${s.pid} on ${s.baseUrl}, healthy after ${Date.now() - t} ms${o.cpuProf ? " (--cpu-prof)" : ""}${proxy ? " (database through the counting proxy)" : ""}`,
        );
        const label = routed ? "ours, Next.js router only" : "ours";
        target = {
          id,
          label,
          baseUrl: s.baseUrl,
          headers: {},
          rotate: routed ? routedKeys : keys,
          pid: s.pid,
          rss,
          db,
          proxy,
        };
        if (!routed) oursUpstream0 = (await up.stats()).total;
      }

      try {
        if (target.rss && repetition === 1) {
          idleRss[id] = target.rss.sample() / 1024;
          idleBreakdown[id] = rssBreakdown(target.pid!);
        }
        for (const mode of ["json", "stream"] as Mode[]) {
          await checkAnswer(target, mode);
          if (id === "ours") oursCounted2xx++;
        }
        const q = o.quietWaitS > 0 ? await waitForQuiet(0.3, o.quietWaitS * 1000) : { waitedMs: 0, busy: null };
        if (q.waitedMs > 1_500)
          log(`waited ${Math.round(q.waitedMs / 1000)} s for unrelated load to drop (busy ${fmt(q.busy, 2)} cores)`);

        for (const mode of ["json", "stream"] as Mode[]) {
          if (o.warmupS > 0) {
            log(`${id} ${mode}: warm-up ${o.warmupS} s @${highC}c`);
            const w = await runLoad(loadSpec(target, mode, highC, o.warmupS));
            if (id === "ours") {
              oursCounted2xx += w.ok2xx;
              oursAllowance += highC;
            }
            if (w.non2xx || w.errors)
              invalid.push(
                `${id} ${mode} warm-up: ${w.non2xx} non-2xx ${JSON.stringify(w.statusCodes)}, ${w.errors} errors`,
              );
          }
          for (const c of o.connections) {
            log(`${id} ${mode} @${c}c: ${o.durationS} s`);
            const row = { ...(await measureRun(target, up, mode, c, o.durationS, o.warmupS, q.waitedMs)), repetition };
            rows.push(row);
            if (id === "ours") {
              oursCounted2xx += row.ok2xx;
              oursAllowance += c;
            }
            if (row.non2xx || row.errors) {
              invalid.push(
                `${id} ${mode} @${c}c: ${row.non2xx} non-2xx ${JSON.stringify(row.statusCodes)}, ${row.errors} errors (${row.timeouts} timeouts)`,
              );
            }
            if (row.upstreamRequests < row.ok2xx)
              invalid.push(
                `${id} ${mode} @${c}c: ${row.ok2xx} 2xx but the upstream saw only ${row.upstreamRequests} requests`,
              );
          }
          if (mode === "stream" && o.ttfbRequests > 0) {
            log(`${id}: time to first streamed byte, ${o.ttfbRequests} sequential requests`);
            const tt = { ...(await measureTtfb(target, o.ttfbRequests)), repetition };
            ttfbs.push(tt);
            if (id === "ours") oursCounted2xx += tt.ok;
            if (tt.failures) invalid.push(`${id} TTFB: ${tt.failures} failed requests (${tt.firstFailure})`);
          }
        }

        // Runs, front doors and the soak once, on ours' first start.
        const firstStart = repetition === 1;
        if (id === "ours" && o.runs && firstStart) {
          const before = (await up.stats()).total;
          runs = await runRunsRows({
            ours: { ...target, rotate: runsKeys },
            direct: {
              id: "direct",
              label: "direct",
              baseUrl: up.url,
              headers: { authorization: `Bearer ${UPSTREAM_KEY}` },
              pid: null,
              rss: null,
            },
            up,
            keys: runsKeys,
            model: MODEL_SLUG,
            reply: FAKE_REPLY,
            usage: FAKE_USAGE,
            upstreamPath: PATH,
            durationS: o.durationS,
            warmupS: o.warmupS,
            highC,
            lowC,
            latencyRequests: o.runsRequests,
            repeat: o.runsRepeat,
            ttfbRequests: o.ttfbRequests,
            databaseUrl: db!.url,
            quietWaitS: o.quietWaitS,
            completionsSpec: (c, durationS) => loadSpec({ ...target, rotate: runsKeys }, "json", c, durationS),
            measure: (t, mode, c, durationS, spec) =>
              measureRun(t, up, mode, c, durationS, o.warmupS, q.waitedMs, spec),
            ttfb: (t, n, warmup, req) => measureTtfb(t, n, warmup, req),
            log,
          });
          runsUpstream += (await up.stats()).total - before;
          invalid.push(...runs.invalid);
        }

        if (id === "ours" && o.frontDoors && firstStart) {
          const before = (await up.stats()).total;
          frontDoors = await runFrontDoorRows({
            ours: { ...target, rotate: doorsKeys },
            keys: doorsKeys,
            companyId: doorsCompanyId,
            databaseUrl: db!.url,
            model: MODEL_SLUG,
            prompt: MESSAGES[0]!.content,
            reply: FAKE_REPLY,
            usage: FAKE_USAGE,
            durationS: o.durationS,
            warmupS: o.warmupS,
            highC,
            lowC,
            latencyRequests: o.runsRequests,
            repeat: o.runsRepeat,
            quietWaitS: o.quietWaitS,
            measure: (t, mode, c, durationS, spec) =>
              measureRun(t, up, mode, c, durationS, o.warmupS, q.waitedMs, spec),
            log,
          });
          runsUpstream += (await up.stats()).total - before;
          invalid.push(...frontDoors.invalid);
        }

        if (id === "ours" && o.soakS > 0 && firstStart) {
          log(`ours: RSS soak ${o.soakS} s @${highC}c json, sampling RSS every second`);
          const samples: { t: number; rssMb: number }[] = [];
          const t0 = performance.now();
          const tick = () =>
            samples.push({
              t: (performance.now() - t0) / 1000,
              rssMb: processTree(target.pid!).reduce((s, p) => s + rssKb(p), 0) / 1024,
            });
          const gw = processTree(target.pid!);
          const cpu0 = cpuTicksOf(gw);
          tick();
          const timer = setInterval(tick, 1_000);
          let r: LoadResult;
          try {
            r = await runLoad(loadSpec(target, "json", highC, o.soakS));
          } finally {
            clearInterval(timer);
          }
          tick();
          const endBreakdown = rssBreakdown(target.pid!);
          const cpuMs = cpuMsBetween(cpu0, cpuTicksOf([...new Set([...gw, ...processTree(target.pid!)])]));
          oursCounted2xx += r.ok2xx;
          oursAllowance += highC;
          if (r.non2xx || r.errors)
            invalid.push(`ours soak: ${r.non2xx} non-2xx ${JSON.stringify(r.statusCodes)}, ${r.errors} errors`);
          const mbs = samples.map((s) => s.rssMb);
          soak = {
            durationS: o.soakS,
            connections: highC,
            rps: r.rps,
            p50: r.p50,
            p99: r.p99,
            ok2xx: r.ok2xx,
            non2xx: r.non2xx,
            errors: r.errors,
            samples,
            startMb: mbs[0]!,
            peakMb: Math.max(...mbs),
            endMb: mbs.at(-1)!,
            slopeMbPerMin: slopePerMin(samples),
            floorSlopeMbPerMin: floorSlopePerMin(samples),
            gatewayCpuMsPerReq: cpuMs / Math.max(1, r.total),
            endBreakdown,
          };
        }
      } catch (err) {
        if (server) log(`--- ours: server log tail ---\n${server.logTail(30)}`);
        throw err;
      } finally {
        if (server) oursLogTail = server.logTail(40);
        if (target.rss) gatewayPeaks[id] = Math.max(gatewayPeaks[id] ?? 0, target.rss.overallPeakMb());
        await stop();
        log(`${id}: stopped`);
      }

      if (id === "ours") {
        // The server is stopped: whatever it answered is committed. Count the ledger.
        const sql = postgres(db!.url, { max: 1, onnotice: () => {} });
        try {
          const [l] = await sql<
            { n: string }[]
          >`select count(*)::text as n from ledger_entries where kind = 'completion' and company_id = ${oursCompanyId}`;
          const byStatus = await sql<
            { status: string; n: string }[]
          >`select status::text, count(*)::text as n from runs where company_id = ${oursCompanyId} group by status`;
          oursUpstream += (await up.stats()).total - oursUpstream0 - runsUpstream;
          runsUpstream = 0;
          if (runsCompanyId) {
            const rs = await sql<
              { status: string; n: string }[]
            >`select status::text, count(*)::text as n from runs where company_id = ${runsCompanyId} group by status`;
            runsByStatus = Object.fromEntries(rs.map((r) => [r.status, Number(r.n)]));
          }
          ledger = {
            completionRows: Number(l!.n),
            expected2xx: oursCounted2xx,
            cutOffAllowance: oursAllowance,
            runsByStatus: Object.fromEntries(byStatus.map((r) => [r.status, Number(r.n)])),
            upstreamRequests: oursUpstream,
          };
        } finally {
          await sql.end({ timeout: 5 });
        }
        const { completionRows, expected2xx, cutOffAllowance } = ledger;
        log(
          `ledger: ${completionRows} completion rows for ${expected2xx} 2xx completions (+ up to ${cutOffAllowance} cut off in flight at run ends)`,
        );
        if (completionRows < expected2xx || completionRows > expected2xx + cutOffAllowance) {
          invalid.push(
            `ledger: ${completionRows} completion rows, expected ${expected2xx} (2xx answers) to ${expected2xx + cutOffAllowance} (+ requests in flight when a load run stopped)`,
          );
        }
        if (profileDir) {
          const inclusive = [
            "lib/runs/stages/history",
            "lib/runs/claim-thread",
            "lib/runs/create-run",
            "lib/threads/",
            "next/dist/server",
            "lib/auth/",
            "lib/rate-limit/",
            "lib/billing/",
            "lib/runs/persist-run",
            "lib/runs/",
            "lib/protocols/",
            "lib/runs/stages/reserve-credit",
            "lib/providers/",
            "lib/completions/",
            "lib/models/",
            "lib/http/",
            "lib/ids",
            "drizzle-orm",
            "postgres",
            "zod",
            "gpt-tokenizer",
            "pino",
          ];
          for (const f of fs.readdirSync(profileDir).filter((n) => n.endsWith(".cpuprofile"))) {
            const file = path.join(profileDir, f);
            profiles.push(summarizeProfile(file, { top: 30, root: appRoot, inclusive }));
            // The same profile over one measured row only: per-request costs without start-up and warm-up.
            const windowOf = (r: Row, label?: string) => {
              const w = { fromNs: BigInt(r.windowNs[0]), toNs: BigInt(r.windowNs[1]), requests: r.total };
              windowed.push({
                mode: r.mode,
                connections: r.connections,
                ...(label ? { label } : {}),
                ...summarizeProfileWindows(file, [w], { top: 30, root: appRoot, inclusive }),
              });
            };
            for (const r of rows.filter((x) => x.target === "ours")) windowOf(r);
            // The runs rows at the high connection count: completions baseline and runs, pair by pair.
            for (const r of runs?.rows.filter((x) => x.case === "json-throughput") ?? [])
              windowOf(r, `${r.label} rep ${r.repetition}`);
            // The front doors' throughput rows: completions, Responses and Messages, repetition by repetition.
            for (const r of frontDoors?.rows.filter((x) => x.case === "throughput") ?? [])
              windowOf(r, `${r.door} rep ${r.repetition}`);
          }
        }
      }
    }
  } catch (err) {
    errors.push((err as Error).stack ?? String(err));
    log(`ERROR: ${(err as Error).message}`);
  } finally {
    await runCleanups();
  }

  // --- report ------------------------------------------------------------------------------------
  if (build && !o.isolatedBuild) {
    if (currentBuildId() !== build.buildId)
      invalid.push(
        `.next was rebuilt during the run (build ${build.buildId} → ${currentBuildId() ?? "none"}); use --isolated-build`,
      );
    else if (runningBuilds().length > 0)
      invalid.push(`a next build is running in this project (pid ${runningBuilds().join(", ")}); use --isolated-build`);
  }
  const find = (id: TargetId, mode: Mode, c: number) =>
    rows.find((r) => r.target === id && r.mode === mode && r.connections === c);
  const tt = (id: TargetId, repetition?: number) => ttfbs.find((x) => x.target === id && x.repetition === repetition);
  const noisy = (r: Row) => r.otherCores != null && r.otherCores > NOISY_OTHER_CORES;
  const verdicts: Verdict[] = matrixVerdicts({ rows, ttfbs, lowC, highC, noisy });
  if (runs && !runs.skipped) verdicts.push(...runsVerdicts(runs, find("ours", "json", highC)));
  if (frontDoors) verdicts.push(...frontDoorVerdicts(frontDoors));
  if (soak) {
    verdicts.push({
      name: `RSS peak over the ${soak.durationS} s soak @${soak.connections}c`,
      value: soak.peakMb,
      unit: "MiB",
      target: `< ${MATRIX_TARGETS.rssMib} MiB`,
      result: soak.peakMb < MATRIX_TARGETS.rssMib ? "PASS" : "MISS",
      disturbed: false,
    });
    verdicts.push({
      name: `RSS floor slope over the ${soak.durationS} s soak (flat)`,
      value: soak.floorSlopeMbPerMin,
      unit: "MiB/min",
      target: `< +${TARGET_RSS_SLOPE_MIB_PER_MIN} MiB/min`,
      // Flat = not growing: a falling RSS (memory handed back) passes.
      result: soak.floorSlopeMbPerMin < TARGET_RSS_SLOPE_MIB_PER_MIN ? "PASS" : "MISS",
      disturbed: false,
    });
  }

  const table = renderTable(
    [
      "target",
      "mode",
      "conns",
      "rep",
      "req/s",
      "p50 ms",
      "p99 ms",
      "TTFB p50",
      "TTFB p99",
      "gw CPU ms/req",
      "gw sys %",
      "gw writes/req",
      "upstream ms/req",
      "db ms/req",
      "peak RSS MiB",
      "non-2xx",
      "other cores",
    ],
    rows.map((r) => {
      const t = r.mode === "stream" && r.connections === lowC ? tt(r.target, r.repetition) : undefined;
      return [
        r.label,
        r.mode,
        String(r.connections),
        String(r.repetition ?? 1),
        fmt(r.rps, 0),
        fmt(r.p50, 3),
        fmt(r.p99, 3),
        t ? fmt(t.p50, 3) : "-",
        t ? fmt(t.p99, 3) : "-",
        r.gatewayCpuMsPerReq === null ? "-" : fmt(r.gatewayCpuMsPerReq, 3),
        r.gatewaySysShare === null ? "-" : fmt(r.gatewaySysShare * 100, 0),
        r.gatewayWritesPerReq === null ? "-" : fmt(r.gatewayWritesPerReq, 2),
        fmt(r.upstreamCpuMsPerReq, 3),
        r.dbCpuMsPerReq === null ? "-" : fmt(r.dbCpuMsPerReq, 3),
        r.peakRssMb === null ? "-" : fmt(r.peakRssMb, 0),
        String(r.non2xx + r.errors),
        r.otherCores === null ? "-" : fmt(r.otherCores, 2),
      ];
    }),
    { leftColumns: 2 },
  );
  const ttfbTable = ttfbs.length
    ? renderTable(
        [
          "stream, 1 connection, sequential",
          "rep",
          "n",
          "TTFB p50 ms",
          "TTFB p99 ms",
          "TTFB mean",
          "headers p50",
          "whole p50",
        ],
        ttfbs.map((x) => [
          x.label,
          String(x.repetition ?? 1),
          String(x.n),
          fmt(x.p50, 3),
          fmt(x.p99, 3),
          fmt(x.mean, 3),
          fmt(x.headersP50, 3),
          fmt(x.totalP50, 3),
        ]),
      )
    : "";
  const verdictTable = renderTable(
    ["goal", "ours", "peer", "target", "result"],
    verdicts.map((v) => {
      const digits = v.unit.startsWith("%") ? 1 : v.unit === "MiB" ? 0 : v.unit === "MiB/min" ? 2 : 3;
      return [
        v.name,
        v.value === null ? "-" : `${fmt(v.value, digits)} ${v.unit}`,
        v.peer == null ? "-" : `${fmt(v.peer, digits)} ${v.unit}`,
        v.target,
        v.disturbed ? `${v.result} (disturbed)` : v.result,
      ];
    }),
  );
  const idleLine = Object.keys(idleRss).length
    ? `Gateway RSS idle after start (before any completion): ${Object.entries(idleRss)
        .map(([k, v]) => `${k} ${fmt(v, 0)} MiB (${fmt(idleBreakdown[k]?.anonMb, 0)} anonymous)`)
        .join(", ")}; overall peak: ${Object.entries(gatewayPeaks)
        .map(([k, v]) => `${k} ${fmt(v, 0)} MiB`)
        .join(", ")}`
    : "";
  const soakLine = soak
    ? `RSS soak, ours, ${soak.durationS} s @${soak.connections}c json: ${fmt(soak.rps, 0)} req/s, RSS start ${fmt(soak.startMb, 0)} / peak ${fmt(soak.peakMb, 0)} / end ${fmt(soak.endMb, 0)} MiB, slope ${fmt(soak.slopeMbPerMin, 2)} MiB/min over all ${soak.samples.length} samples, ${fmt(soak.floorSlopeMbPerMin, 2)} MiB/min over the ${FLOOR_WINDOW_S}-s minima; at the end ${fmt(soak.endBreakdown.anonMb, 0)} MiB anonymous (JS heap, buffers, malloc) + ${fmt(soak.endBreakdown.fileMb, 0)} MiB file-backed + ${fmt(soak.endBreakdown.shmemMb, 0)} MiB shared`
    : "";
  const ledgerLine = ledger
    ? `Persistence + billing: ${ledger.completionRows} 'completion' ledger rows for ${ledger.expected2xx} 2xx completions through ours (allowance for requests cut off in flight at run ends: ${ledger.cutOffAllowance}); runs ${JSON.stringify(ledger.runsByStatus)}; upstream calls from ours ${ledger.upstreamRequests}`
    : "";
  const noisyRows = rows
    .filter((r) => r.otherCores !== null && r.otherCores > NOISY_OTHER_CORES)
    .map(
      (r) =>
        `${r.target} ${r.mode} @${r.connections}c: other processes kept ${fmt(r.otherCores, 2)} cores busy (${r.otherTop.map((x) => `${x.comm} ${fmt(x.cores, 2)}`).join(", ")})`,
    );

  const profileText = [
    ...profiles.map(
      (p) =>
        `CPU profile ${path.relative(ROOT, p.file)}: ${fmt(p.totalMs, 0)} ms non-idle over the server's whole life (start-up included); per measured run:`,
    ),
    ...windowed.map((w) =>
      [
        `${w.label ?? "ours"} ${w.mode} @${w.connections}c: ${fmt(w.busyMs, 0)} ms sampled CPU over ${fmt(w.windowMs / 1000, 1)} s, ${w.requests} requests → ${fmt(w.busyMsPerReq, 3)} ms CPU per request`,
        renderTable(
          ["self time by area", "ms/req", "%"],
          w.byArea.slice(0, 14).map((a) => [a.area, fmt(a.perReqMs, 3), fmt(a.pct, 1)]),
        ),
        renderTable(
          ["top self-time functions", "ms/req", "%"],
          w.byFunction.slice(0, 22).map((f) => [f.fn.slice(0, 120), fmt(f.perReqMs, 3), fmt(f.pct, 1)]),
        ),
        renderTable(
          ["inclusive (synchronous stack)", "ms/req", "%"],
          w.inclusive.map((i) => [i.match, fmt(i.perReqMs, 3), fmt(i.pct, 1)]),
        ),
      ].join("\n\n"),
    ),
  ].join("\n\n");
  const dbText = [...rows, ...(runs?.rows ?? [])]
    .filter((r) => r.db)
    .map(
      (r) =>
        `database traffic per request, ${r.label} ${r.mode} @${r.connections}c: ${fmt(r.db!.statementsPerReq, 2)} statements, ${fmt(r.db!.syncsPerReq, 2)} syncs (round trips), ${fmt(r.db!.writesPerReq, 2)} client writes; database wait ${fmt(r.db!.waitMsPerReq, 3)} ms summed over syncs, ${fmt(r.db!.busyMsPerReq, 3)} ms wall with a query outstanding (per request; includes the proxy hop)\n` +
        `  per req   wait ms/req  statement\n` +
        r
          .db!.byStatementPerReq.map(
            (s) => `  ${fmt(s.perReq, 2).padStart(7)}  ${fmt(s.waitMsPerReq, 3).padStart(11)}  ${s.sql.slice(0, 110)}`,
          )
          .join("\n"),
    )
    .join("\n\n");

  const header =
    `Chat-completions benchmark — ${startedAt.toISOString()}\n` +
    `model ${MODEL_SLUG}; fake upstream (separate process) replies ${JSON.stringify(FAKE_REPLY)}, usage ${FAKE_USAGE.prompt}+${FAKE_USAGE.completion}; ` +
    `commit ${gitAtStart.commit?.slice(0, 7) ?? "?"}${gitAtStart.dirtyFiles.some((f) => !/ bench\//.test(f)) ? " + uncommitted changes outside bench/" : ""}; db: ${db ? `${db.mode} ${db.name} @ ${db.where}` : "-"}; build ${build?.buildId ?? "-"}${o.isolatedBuild ? " (isolated copy)" : build?.newerSources.length ? ` (STALE: ${build.newerSources.length} newer source files)` : ""}\n` +
    `node ${process.version}, ${os.cpus().length} cpu (${os.cpus()[0]?.model ?? "?"}); warm-up ${o.warmupS} s per target and mode @${highC}c, ${o.durationS} s per run, pipelining 1; ` +
    `ours: ${KEY_COUNT} keys rotated per request, PostgreSQL rate limit${o.cpuProf ? ", --cpu-prof" : ""}${o.dbProxy ? ", DATABASE through a counting proxy (latency +1 hop)" : ""}\n` +
    `CPU ms/req: /proc utime+stime of the process tree over the measured window ÷ responses; TTFB: ${o.ttfbRequests} sequential streaming requests, keep-alive, request start → first body byte; ` +
    `total bench time ${Math.round((Date.now() - startedAt.getTime()) / 1000)} s`;
  const text = [
    header,
    table,
    ttfbTable,
    runs ? runsTables(runs) : "",
    frontDoors ? frontDoorTable(frontDoors) : "",
    runsByStatus ? `Runs company's runs by status once ours stopped: ${JSON.stringify(runsByStatus)}` : "",
    soakLine,
    idleLine,
    ledgerLine,
    verdictTable,
    noisyRows.length ? `DISTURBED (unrelated load; numbers pessimistic):\n  ${noisyRows.join("\n  ")}` : "",
    invalid.length ? `INVALID RUN:\n  ${invalid.join("\n  ")}` : "",
    errors.length ? `ERRORS:\n  ${errors.join("\n  ")}` : "",
    dbText,
    profileText,
  ]
    .filter(Boolean)
    .join("\n\n");

  const record = {
    name: o.name,
    schema: 1,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    valid: invalid.length === 0 && errors.length === 0,
    invalid,
    disturbed: noisyRows,
    errors,
    git: gitAtStart,
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
      fakeReply: FAKE_REPLY,
      fakeUsage: FAKE_USAGE,
      bodies: BODIES,
      keys: KEY_COUNT,
      rpmPerKey: MAX_RPM,
      creditsOt: CREDITS_OT,
      peer: "@portkey-ai/gateway 1.15.2, --headless, x-portkey-provider: openai, x-portkey-custom-host: <fake upstream>/v1",
    },
    targets: {
      ...MATRIX_TARGETS,
      rssSlopeMibPerMin: TARGET_RSS_SLOPE_MIB_PER_MIN,
      runs: RUN_TARGETS,
      frontDoors: FRONT_DOOR_TARGETS,
    },
    verdicts,
    rows,
    runs: runs ? { ...runs, byStatus: runsByStatus } : null,
    frontDoors,
    ttfb: ttfbs,
    soak,
    ledger,
    gatewayOverallPeakRssMb: gatewayPeaks,
    gatewayIdleRssMb: idleRss,
    gatewayIdleRssBreakdown: idleBreakdown,
    profiles,
    profileWindows: windowed,
    oursLogTail,
    table,
    text,
  };
  let file: string | null = null;
  try {
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    file = path.join(RESULTS_DIR, `${o.name}-${stampForFile(startedAt)}.json`);
    const json = `${JSON.stringify(record, null, 2)}\n`;
    fs.writeFileSync(file, json);
    fs.writeFileSync(path.join(RESULTS_DIR, `${o.name}-latest.json`), json);
  } catch (err) {
    errors.push(`could not save results: ${(err as Error).message}`);
  }
  if (o.print) {
    process.stdout.write(`\n${text}\n`);
    if (file) process.stdout.write(`\nsaved ${path.relative(ROOT, file)} and bench/results/${o.name}-latest.json\n`);
  }
  return { valid: record.valid, file, table, verdicts, record };
}

// --- standalone ----------------------------------------------------------------------------------

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { values: flags } = parseArgs({
    options: {
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "3" },
      connections: { type: "string", default: "1,32" },
      soak: { type: "string", default: "60" },
      "ttfb-requests": { type: "string", default: "200" },
      targets: { type: "string", default: "direct,peer,ours,routed" },
      "quiet-wait": { type: "string", default: "5" },
      "isolated-build": { type: "boolean", default: false },
      rebuild: { type: "boolean", default: false },
      "cpu-prof": { type: "boolean", default: false },
      "db-proxy": { type: "boolean", default: false },
      /** Profiling run: ours only, no soak, --cpu-prof and --db-proxy. */
      profile: { type: "boolean", default: false },
      name: { type: "string" },
      "node-args": { type: "string", default: "" },
      /** Leave out the runs rows (bench/runs.ts). */
      "skip-runs": { type: "boolean", default: false },
      "runs-repeat": { type: "string", default: "5" },
      "runs-requests": { type: "string", default: "200" },
      /** Leave out the /v1/responses and /v1/messages rows (bench/front-doors.ts). */
      "skip-front-doors": { type: "boolean", default: false },
      /** Measure every target this many times, in an order rotated each time. */
      repeat: { type: "string", default: "3" },
    },
    strict: true,
  });
  const profile = flags.profile!;
  const targets = (profile ? "ours" : flags.targets!).split(",").map((s) => s.trim()) as TargetId[];
  for (const t of targets)
    if (!["direct", "peer", "ours", "routed"].includes(t))
      throw new Error(`unknown target '${t}' (direct, peer, ours, routed)`);
  runCompletionsBench({
    durationS: Number(flags.duration),
    warmupS: Number(flags.warmup),
    connections: flags.connections!.split(",").map(Number),
    soakS: profile ? 0 : Number(flags.soak),
    ttfbRequests: Number(flags["ttfb-requests"]),
    targets,
    quietWaitS: Number(flags["quiet-wait"]),
    isolatedBuild: flags["isolated-build"],
    rebuild: flags.rebuild,
    cpuProf: profile || flags["cpu-prof"],
    dbProxy: profile || flags["db-proxy"],
    extraNodeArgs: flags["node-args"]!.split(" ").filter(Boolean),
    name: flags.name ?? (profile ? "completions-profile" : "completions"),
    runs: !flags["skip-runs"],
    runsRepeat: Number(flags["runs-repeat"]),
    runsRequests: Number(flags["runs-requests"]),
    frontDoors: !flags["skip-front-doors"],
    repeat: profile ? 1 : Number(flags.repeat),
  })
    .then((r) => process.exit(r.valid ? 0 : 1))
    .catch((err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    });
}
