/**
 * Body-flood benchmark: does the server stay responsive and bounded in
 * memory while clients send it huge request bodies?
 *
 * The production server (scripts/server/main.mjs, as `npm start`) on its own database; for
 * `--duration` seconds (20) `--clients` clients (10) each POST a `--body-mib` MiB body (30) to
 * /v1/chat/completions in a loop, one request at a time, cycling through four kinds of body:
 *
 *   text        a 30 MiB text prompt to local-chat-latest with max_tokens 16, from a key with balance
 *   limited     the same from a key already over its per-minute rate limit
 *   no-balance  the same from the key of a company with a zero balance
 *   image       a message with one 30 MiB `data:image/png;base64,…` image part, from the key with balance
 *
 * Meanwhile a probe in its own thread GETs /api/health every 20 ms (the next probe 20 ms after the
 * previous one started, or at once when it took longer) and records its latency: the server's
 * event-loop delay as a client sees it. The server's RSS (VmRSS of its process tree) is sampled
 * every 250 ms. The probe runs until the last body request has ended.
 *
 * Goals (PASS/MISS, never failing the process): probe p99 < 100 ms and peak RSS < 400 MiB. A run
 * is invalid (exit 1 standalone, `valid: false` from run.ts) when a kind got no answer at all or the
 * probe recorded fewer than 50 samples.
 *
 *   npm run bench -- --body-flood-only [--flood-duration 20 --flood-clients 10 --flood-body-mib 30 --database-in-place]
 *   npx tsx bench/body-flood.ts [--duration 20 --clients 10 --body-mib 30 --database-in-place --isolated-build --rebuild]
 *
 * Database: DATABASE_URL set → a fresh cockpit_bench_<timestamp> database on that server (dropped
 * afterwards), or with --database-in-place DATABASE_URL's database itself (migrated, never
 * dropped; for shared servers where a benchmark may only use its own database); unset → an
 * embedded PostgreSQL in a temp dir. Results: bench/results/body-flood-<timestamp>.json and
 * body-flood-latest.json.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { admin, createCompany, createKey, MAX_RPM } from "./lib/admin";
import { provisionDatabase, useDatabase, type BenchDatabase } from "./lib/db";
import { waitForQuiet } from "./lib/measure";
import { machineBusyPct, machineCpu, processTree, rssKb } from "./lib/proc";
import { appEnv, prepareBuild, ROOT, startNext, type BuildInfo, type NextServer } from "./lib/server";
import { fmt, renderTable } from "./lib/table";
import { cleanupStack } from "./lib/cleanups";
import { runLongRunRows, type LongRunRow } from "./body-flood-long-runs";

export interface BodyFloodOptions {
  /** Seconds during which clients start new requests (20). */
  durationS?: number;
  /** Concurrent clients, each one request at a time (10). */
  clients?: number;
  /** Size of each request body in MiB (30). */
  bodyMiB?: number;
  /** Health probe period in ms (20). */
  probeIntervalMs?: number;
  /** RSS sampling period in ms (250). */
  rssIntervalMs?: number;
  /** Before the flood, wait up to this long for unrelated load to drop below 0.3 cores (10). */
  quietWaitS?: number;
  isolatedBuild?: boolean;
  rebuild?: boolean;
  /** PostgreSQL server for the bench database (default process.env.DATABASE_URL; none = embedded). */
  databaseUrl?: string;
  /** Use the database of `databaseUrl` as it is instead of creating a fresh one on its server. */
  databaseInPlace?: boolean;
  /** Results file prefix (body-flood). */
  name?: string;
  /** Seconds each long-run kind is sent after the flood (bench/body-flood-long-runs.ts; 10, 0 = none). */
  longRunS?: number;
  /** Concurrent clients per long-run kind (2). */
  longRunClients?: number;
}

export interface BodyFloodResult {
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

const TARGET_PROBE_P99_MS = 100;
const TARGET_PEAK_RSS_MIB = 400;
const MIN_PROBES = 50;
/** A body request that takes longer than this is abandoned and counted as a timeout. */
const REQUEST_TIMEOUT_MS = 120_000;
const PATH = "/v1/chat/completions";
const MODEL = "local-chat-latest";
const KINDS = ["text", "limited", "no-balance", "image"] as const;
type Kind = (typeof KINDS)[number];
const RESULTS_DIR = path.join(ROOT, "bench/results");

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

/**
 * The JSON bodies, each exactly `bytes` long: a text prompt of plain words (what a tokenizer
 * really has to chew through), or one image part whose data: URI fills the body.
 */
function makeBodies(bytes: number): Record<"text" | "image", Buffer> {
  const fill = (template: (filler: string) => string, unit: string) => {
    const overhead = Buffer.byteLength(template(""));
    const n = bytes - overhead;
    return Buffer.from(template(unit.repeat(Math.ceil(n / unit.length)).slice(0, n)));
  };
  const text = fill(
    (t) => JSON.stringify({ model: MODEL, max_tokens: 16, messages: [{ role: "user", content: t }] }),
    "lorem ipsum dolor sit amet ",
  );
  const image = fill(
    (d) =>
      JSON.stringify({
        model: MODEL,
        max_tokens: 16,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is in this image?" },
              { type: "image_url", image_url: { url: `data:image/png;base64,${d}` } },
            ],
          },
        ],
      }),
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
  );
  return { text, image };
}

interface BodyResult {
  kind: Kind;
  status: number;
  ms: number;
  error?: string;
}

/** One POST on a fresh connection; resolves (never rejects) with the status, or 0 and the error. */
function postBody(url: URL, key: string, body: Buffer): Promise<Omit<BodyResult, "kind">> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let status = 0;
    let settled = false;
    const done = (error?: string) => {
      if (settled) return;
      settled = true;
      resolve({ status, ms: performance.now() - t0, ...(error && !status ? { error } : {}) });
    };
    const req = http.request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: "POST",
      agent: false,
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "content-length": String(body.length),
      },
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error("timed out")));
    // A server that refuses early may close the connection while the body is still being sent:
    // the answer counts, the write error after it does not.
    req.on("error", (err) => done(err.message));
    req.on("response", (res) => {
      status = res.statusCode ?? 0;
      res.resume();
      res.on("end", () => done());
      res.on("error", () => done());
      res.on("close", () => done());
    });
    req.end(body);
  });
}

/**
 * The probe, in a worker thread so the load generator's own work (30 MiB writes) never delays it.
 * Plain JavaScript evaluated as CommonJS.
 */
const PROBE_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const samples = [];
let stop = false;
parentPort.on("message", (m) => { if (m === "stop") stop = true; });
const once = () => new Promise((resolve) => {
  const t0 = performance.now();
  const req = http.get(workerData.url, { agent }, (res) => {
    res.resume();
    res.on("end", () => resolve([Date.now(), performance.now() - t0, res.statusCode]));
  });
  req.setTimeout(30000, () => req.destroy(new Error("timeout")));
  req.on("error", () => resolve([Date.now(), performance.now() - t0, 0]));
});
(async () => {
  while (!stop) {
    const t0 = performance.now();
    samples.push(await once());
    const wait = workerData.intervalMs - (performance.now() - t0);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  agent.destroy();
  parentPort.postMessage(samples);
})();
`;

function startProbe(url: string, intervalMs: number): { stop: () => Promise<[number, number, number][]> } {
  const worker = new Worker(PROBE_SOURCE, { eval: true, workerData: { url, intervalMs } });
  const result = new Promise<[number, number, number][]>((resolve, reject) => {
    worker.once("message", (m: [number, number, number][]) => resolve(m));
    worker.once("error", reject);
  });
  return {
    stop: async () => {
      worker.postMessage("stop");
      const samples = await result;
      await worker.terminate();
      return samples;
    },
  };
}

export async function runBodyFloodBench(options: BodyFloodOptions = {}): Promise<BodyFloodResult> {
  const o = {
    durationS: options.durationS ?? 20,
    clients: options.clients ?? 10,
    bodyMiB: options.bodyMiB ?? 30,
    probeIntervalMs: options.probeIntervalMs ?? 20,
    rssIntervalMs: options.rssIntervalMs ?? 250,
    quietWaitS: options.quietWaitS ?? 10,
    isolatedBuild: options.isolatedBuild ?? false,
    rebuild: options.rebuild ?? false,
    databaseUrl: options.databaseUrl ?? (process.env.DATABASE_URL || undefined),
    databaseInPlace: options.databaseInPlace ?? false,
    name: options.name ?? "body-flood",
    longRunS: options.longRunS ?? 10,
    longRunClients: options.longRunClients ?? 2,
  };
  const startedAt = new Date();
  const log = (m: string) =>
    process.stderr.write(`[bench:body-flood +${Math.round((Date.now() - startedAt.getTime()) / 1000)}s] ${m}\n`);
  const { stack: cleanups, runAll: runCleanups } = cleanupStack(log);

  const errors: string[] = [];
  const invalid: string[] = [];
  const results: BodyResult[] = [];
  let probes: [number, number, number][] = [];
  const rss: { t: number; mb: number }[] = [];
  let idleRssMb = Number.NaN;
  let build: BuildInfo | undefined;
  let db: BenchDatabase | undefined;
  let floodMs = 0;
  let busyPct: number | null = null;
  let quiet: { waitedMs: number; busy: number | null } = { waitedMs: 0, busy: null };
  let longRuns: LongRunRow[] = [];

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

    const [paying, broke] = await Promise.all([
      createCompany(db.url, "Bench body flood"),
      createCompany(db.url, "Bench body flood (no balance)"),
    ]);
    const [, normal, limited, noBalance] = await Promise.all([
      admin(db.url, ["credits", "grant", "--company", paying, "--amount", "100000", "--note", "body-flood bench"]),
      createKey(db.url, paying, { name: "body flood", rpm: MAX_RPM }),
      createKey(db.url, paying, { name: "body flood (rate limited)", rpm: 1 }),
      createKey(db.url, broke, { name: "body flood (no balance)", rpm: MAX_RPM }),
    ]);
    const keys: Record<Kind, string> = {
      text: normal.secret,
      limited: limited.secret,
      "no-balance": noBalance.secret,
      image: normal.secret,
    };

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-bench-data-"));
    cleanups.push({ name: "data dir", fn: async () => fs.rmSync(dataDir, { recursive: true, force: true }) });
    const t = Date.now();
    const server: NextServer = await startNext({ env: appEnv(db.url, dataDir), appRoot: prepared.appRoot });
    cleanups.push({ name: "server", fn: () => server.stop() });
    log(`server pid ${server.pid} on ${server.baseUrl}, healthy after ${Date.now() - t} ms`);

    // The limited key spends its one call of this minute now: every body it sends is over the limit
    // (a new minute may let one through; the status counts show it).
    const spent = await fetch(`${server.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${limited.secret}` } });
    await spent.arrayBuffer();
    const over = await fetch(`${server.baseUrl}/v1/me`, { headers: { authorization: `Bearer ${limited.secret}` } });
    await over.arrayBuffer();
    if (over.status !== 429) log(`WARNING: the rate-limited key was answered ${over.status}, not 429`);

    const bodies = makeBodies(Math.round(o.bodyMiB * 1024 * 1024));
    const bodyOf: Record<Kind, Buffer> = {
      text: bodies.text,
      limited: bodies.text,
      "no-balance": bodies.text,
      image: bodies.image,
    };
    log(`bodies: text ${fmt(bodies.text.length / 2 ** 20, 1)} MiB, image ${fmt(bodies.image.length / 2 ** 20, 1)} MiB`);

    if (o.quietWaitS > 0) {
      quiet = await waitForQuiet(0.3, o.quietWaitS * 1000);
      if (quiet.waitedMs > 1_500)
        log(
          `waited ${Math.round(quiet.waitedMs / 1000)} s for unrelated load to drop (busy ${fmt(quiet.busy, 2)} cores)`,
        );
    }
    const rssNow = () => processTree(server.pid).reduce((sum, pid) => sum + rssKb(pid), 0) / 1024;
    idleRssMb = rssNow();
    const t0 = Date.now();
    const rssTimer = setInterval(() => {
      const mb = rssNow();
      if (mb > 0) rss.push({ t: (Date.now() - t0) / 1000, mb });
    }, o.rssIntervalMs);
    const probe = startProbe(`${server.baseUrl}/api/health`, o.probeIntervalMs);
    const machine0 = machineCpu();
    const url = new URL(`${server.baseUrl}${PATH}`);
    const endAt = t0 + o.durationS * 1000;
    log(
      `flood: ${o.clients} clients × ${o.bodyMiB} MiB bodies for ${o.durationS} s, probing /api/health every ${o.probeIntervalMs} ms`,
    );
    await Promise.all(
      Array.from({ length: o.clients }, async (_, client) => {
        // Each client cycles through the kinds from its own offset, so every kind is in flight throughout.
        for (let n = client; Date.now() < endAt; n++) {
          const kind = KINDS[n % KINDS.length]!;
          results.push({ kind, ...(await postBody(url, keys[kind], bodyOf[kind])) });
        }
      }),
    );
    floodMs = Date.now() - t0;
    probes = await probe.stop();
    clearInterval(rssTimer);
    busyPct = machineBusyPct(machine0, machineCpu());
    log(`flood over after ${Math.round(floodMs / 1000)} s: ${results.length} body requests, ${probes.length} probes`);
    if (server.exited()) errors.push(`the server exited during the flood\n${server.logTail()}`);
    else if (o.longRunS > 0) {
      longRuns = await runLongRunRows({
        base: server.baseUrl,
        databaseUrl: db.url,
        companyId: paying,
        key: normal.secret,
        durationS: o.longRunS,
        clients: o.longRunClients,
        startProbe: () => startProbe(`${server.baseUrl}/api/health`, o.probeIntervalMs),
        log,
      });
      if (server.exited()) errors.push(`the server exited during the long-run rows\n${server.logTail()}`);
    }
  } catch (err) {
    errors.push((err as Error).stack ?? String(err));
    log(`ERROR: ${(err as Error).message}`);
  } finally {
    await runCleanups();
  }

  // --- report ------------------------------------------------------------------------------------
  const latencies = probes.map((p) => p[1]).sort((a, b) => a - b);
  const probeFailures = probes.filter((p) => p[2] !== 200).length;
  const probeP99 = percentile(latencies, 0.99);
  const peakRss = rss.length ? Math.max(...rss.map((s) => s.mb)) : Number.NaN;
  const byKind = KINDS.map((kind) => {
    const rs = results.filter((r) => r.kind === kind);
    const statuses: Record<string, number> = {};
    for (const r of rs) statuses[r.status || "error"] = (statuses[r.status || "error"] ?? 0) + 1;
    const ms = rs.map((r) => r.ms).sort((a, b) => a - b);
    return {
      kind,
      requests: rs.length,
      statuses,
      p50Ms: percentile(ms, 0.5),
      maxMs: ms.length ? ms.at(-1)! : Number.NaN,
      firstError: rs.find((r) => r.error)?.error,
    };
  });
  for (const k of byKind)
    if (!errors.length && Object.keys(k.statuses).every((s) => s === "error"))
      invalid.push(`${k.kind}: no body request was answered (${k.firstError ?? "none sent"})`);
  if (!errors.length && probes.length < MIN_PROBES) invalid.push(`only ${probes.length} health probes`);

  const verdicts: Verdict[] = [
    {
      name: "event-loop delay: /api/health p99 during the flood",
      value: latencies.length ? probeP99 : null,
      unit: "ms",
      target: `< ${TARGET_PROBE_P99_MS} ms`,
      result: latencies.length ? (probeP99 < TARGET_PROBE_P99_MS ? "PASS" : "MISS") : "n/a",
    },
    {
      name: "peak RSS during the flood",
      value: Number.isNaN(peakRss) ? null : peakRss,
      unit: "MiB",
      target: `< ${TARGET_PEAK_RSS_MIB} MiB`,
      result: Number.isNaN(peakRss) ? "n/a" : peakRss < TARGET_PEAK_RSS_MIB ? "PASS" : "MISS",
    },
  ];
  for (const r of longRuns) {
    verdicts.push({
      name: `event-loop delay: /api/health p99 during long-run ${r.kind}s`,
      value: Number.isNaN(r.p99Ms) ? null : r.p99Ms,
      unit: "ms",
      target: `< ${TARGET_PROBE_P99_MS} ms`,
      result: Number.isNaN(r.p99Ms) ? "n/a" : r.p99Ms < TARGET_PROBE_P99_MS ? "PASS" : "MISS",
    });
  }
  const probeTable = renderTable(
    [
      "/api/health probe",
      "n",
      "failed",
      "p50 ms",
      "p99 ms",
      "max ms",
      ">= 100 ms",
      "idle RSS MiB",
      "peak RSS MiB",
      "end RSS MiB",
      "box busy %",
    ],
    [
      [
        `every ${o.probeIntervalMs} ms`,
        String(probes.length),
        String(probeFailures),
        fmt(percentile(latencies, 0.5), 1),
        fmt(probeP99, 1),
        fmt(latencies.at(-1), 1),
        String(latencies.filter((l) => l >= TARGET_PROBE_P99_MS).length),
        fmt(idleRssMb, 0),
        fmt(peakRss, 0),
        fmt(rss.at(-1)?.mb, 0),
        fmt(busyPct, 0),
      ],
    ],
  );
  const kindTable = renderTable(
    ["body kind", "requests", "statuses", "p50 ms", "max ms"],
    byKind.map((k) => [
      k.kind,
      String(k.requests),
      Object.entries(k.statuses)
        .map(([s, n]) => `${s}×${n}`)
        .join(" "),
      fmt(k.p50Ms, 0),
      fmt(k.maxMs, 0),
    ]),
  );
  const longRunTable = renderTable(
    ["long unbroken run", "requests", "statuses", "probes", "health p99 ms", "health max ms"],
    longRuns.map((r) => [
      r.kind,
      String(r.requests),
      Object.entries(r.statuses)
        .map(([s, n]) => `${s}×${n}`)
        .join(" "),
      String(r.probes),
      fmt(r.p99Ms, 1),
      fmt(r.maxMs, 1),
    ]),
  );
  const verdictTable = renderTable(
    ["goal", "value", "target", "result"],
    verdicts.map((v) => [v.name, v.value === null ? "-" : `${fmt(v.value, 1)} ${v.unit}`, v.target, v.result]),
  );
  const table = `${probeTable}\n\n${kindTable}\n\n${longRuns.length ? `${longRunTable}\n\n` : ""}${verdictTable}`;

  const out = process.stdout;
  out.write(`\nBody-flood benchmark — ${startedAt.toISOString()}\n`);
  out.write(
    `db: ${db ? `${db.mode} ${db.name} @ ${db.where}` : "-"}; build ${build?.buildId ?? "-"}${o.isolatedBuild ? " (isolated copy)" : build?.newerSources.length ? ` (STALE: ${build.newerSources.length} newer source files)` : ""}; ` +
      `node ${process.version}, ${os.cpus().length} cpu; ${o.clients} clients × ${o.bodyMiB} MiB for ${o.durationS} s (flood ended after ${fmt(floodMs / 1000, 1)} s)\n\n`,
  );
  out.write(`${table}\n`);
  if (quiet.busy !== null && quiet.busy >= 0.3)
    out.write(
      `\nDISTURBED: ${fmt(quiet.busy, 2)} cores were busy with unrelated work when the flood started (waited ${Math.round(quiet.waitedMs / 1000)} s)\n`,
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
      totalMemMb: Math.round(os.totalmem() / 2 ** 20),
      loadavgAtStart: os.loadavg(),
    },
    build: build ? { ...build, isolated: o.isolatedBuild } : null,
    database: db ? { mode: db.mode, name: db.name, where: db.where } : null,
    settings: { ...o, databaseUrl: undefined, model: MODEL, kinds: KINDS, requestTimeoutMs: REQUEST_TIMEOUT_MS },
    targets: { probeP99Ms: TARGET_PROBE_P99_MS, peakRssMib: TARGET_PEAK_RSS_MIB },
    verdicts,
    quietWait: quiet,
    machineBusyPct: busyPct,
    floodMs,
    probe: {
      n: probes.length,
      failed: probeFailures,
      p50: percentile(latencies, 0.5),
      p99: probeP99,
      max: latencies.at(-1) ?? null,
      samples: probes,
    },
    rss: { idleMb: idleRssMb, peakMb: peakRss, samples: rss },
    byKind,
    longRuns,
    table,
  };
  let file: string | null = null;
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  file = path.join(RESULTS_DIR, `${o.name}-${stampForFile(startedAt)}.json`);
  const json = `${JSON.stringify(record, null, 2)}\n`;
  fs.writeFileSync(file, json);
  fs.writeFileSync(path.join(RESULTS_DIR, `${o.name}-latest.json`), json);
  out.write(`\nsaved ${path.relative(ROOT, file)} and bench/results/${o.name}-latest.json\n`);
  return { valid: record.valid, file, table, verdicts };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "20" },
      clients: { type: "string", default: "10" },
      "body-mib": { type: "string", default: "30" },
      "quiet-wait": { type: "string", default: "10" },
      "database-in-place": { type: "boolean", default: false },
      "isolated-build": { type: "boolean", default: false },
      rebuild: { type: "boolean", default: false },
    },
    strict: true,
  });
  runBodyFloodBench({
    durationS: Number(values.duration),
    clients: Number(values.clients),
    bodyMiB: Number(values["body-mib"]),
    quietWaitS: Number(values["quiet-wait"]),
    databaseInPlace: values["database-in-place"],
    isolatedBuild: values["isolated-build"],
    rebuild: values.rebuild,
  })
    .then((r) => process.exit(r.valid ? 0 : 1))
    .catch((err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    });
}
