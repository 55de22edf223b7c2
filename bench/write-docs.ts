/**
 * Writes docs/benchmarks.md from bench/results/*-latest.json: how to run each bench (the templates
 * below) and the numbers of its latest run. `npm run bench:docs`; `npm run bench` calls it at its end.
 * The page carries no dates: a run is named by its commit when the JSON has one.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import prettier from "prettier";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const RESULTS_DIR = path.join(ROOT, "bench/results");
const OUT = path.join(ROOT, "docs/benchmarks.md");

/* eslint-disable @typescript-eslint/no-explicit-any -- the result files are each bench's own shape */
type Result = Record<string, any>;

interface Bench {
  /** File name in bench/results without `-latest.json`. */
  file: string;
  title: string;
  command: string;
  measures: string;
  goals: string;
  /** Markdown for the numbers beyond the verdicts and the bench's own table. */
  numbers?: (r: Result) => string[];
}

const num = (v: unknown, digits = 1): string =>
  typeof v === "number" && Number.isFinite(v)
    ? v.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: 0 })
    : "–";

function table(head: string[], rows: unknown[][]): string {
  const cell = (v: unknown) => String(v ?? "–").replace(/\|/g, "\\|");
  return [
    `| ${head.join(" | ")} |`,
    `| ${head.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`),
  ].join("\n");
}

const webhookNumbers = (r: Result): string[] => [
  table(
    ["load", "req/s", "p50 ms", "p99 ms", "errors"],
    [
      ["closed loop", num(r.trigger?.rps, 0), num(r.trigger?.p50_ms), num(r.trigger?.p99_ms), r.trigger?.errors],
      ...((r.trigger_paced ?? []) as Result[]).map((p) => [
        `steady ${p.rate} req/s`,
        num(p.answers_per_s, 0),
        num(p.p50_ms),
        num(p.p99_ms),
        p.errors,
      ]),
    ],
  ),
  table(
    ["events", "done", "events/s", "lag 202 → run start, paced p50 / p99 ms"],
    [
      [
        num(r.burst?.events, 0),
        num(r.burst?.done, 0),
        num(r.burst?.events_per_s, 0),
        r.paced?.lag_p50_ms == null ? "–" : `${num(r.paced.lag_p50_ms)} / ${num(r.paced.lag_p99_ms)}`,
      ],
    ],
  ),
];

const BENCHES: Bench[] = [
  {
    file: "foundation",
    title: "Foundation: key auth and rate limit",
    command: "npm run bench -- --foundation-only",
    measures:
      "`GET /api/health` (a bare route handler) against `GET /v1/me` (key auth, the per-key rate limit in PostgreSQL or Redis, one company lookup) on the production build, at 1 and 32 connections, with keys counted call by call and keys served in grants.",
    goals:
      "Auth and rate limit add under 1 ms at p50 (1 connection) and keep at least 60 % of the bare throughput (32 connections).",
  },
  {
    file: "completions",
    title: "Chat completions",
    command: "npm run bench:completions",
    measures:
      "`POST /v1/chat/completions`, JSON and streamed, straight to a fake upstream (`direct`), through this gateway with persistence and billing on (`ours`), and through the Portkey gateway (`peer`) when it is installed; then `POST /v1/threads/{id}/runs` on threads of 20 messages against chat completions of one message (and, for reference, of the same 20 messages), and `POST /v1/responses` and `POST /v1/messages` carrying the same message, in turns with chat completions. Every 2xx answer must have its ledger row. A run does one statement more than a completion (its thread claim, shared by the claims in flight) and sends its thread upstream, so the runs ratio falls as the path both share gets cheaper, even while both rates rise.",
    goals:
      "Medians of three repetitions, the targets' order rotated each time. At 32 connections: throughput at least 120 % of the peer's, at most 1.0 ms of gateway CPU per call, no more write system calls per streamed call than the peer, peak RSS under 250 MiB. At 1 connection: added p50 at most the peer's plus 1 ms, added time to first streamed byte at most 1.5 ms. Runs at least 90 % of completions' throughput; Responses and Messages at least 90 % of it, with a p50 at 1 connection within 0.5 ms of completions'.",
  },
  {
    file: "body-flood",
    title: "Large bodies",
    command: "npm run bench -- --body-flood-only",
    measures:
      "Event-loop delay (a `/api/health` probe every 20 ms) and server RSS while 10 clients send 30 MiB bodies, then while long runs of unbroken text go through completions, tool results and webhooks.",
    goals: "Probe p99 under 100 ms; peak RSS under 400 MiB.",
  },
  {
    file: "db-fault",
    title: "Database outage",
    command: "npm run bench:db-fault",
    measures:
      "20 clients of chat completions for 60 s with PostgreSQL behind a TCP proxy that cuts it for 10 s (`--fault-mode down|blackhole`): answers per phase, the slowest 503, the first 200 after the cut, readiness, and one ledger row per 200.",
    goals:
      "Every 503 within 2 s and with `Retry-After`; the first 200 within 2 s of the database's return; no other answer.",
  },
  {
    file: "scaling",
    title: "Scaling: server processes and the database",
    command: "npm run bench -- --scaling-only",
    measures:
      "Chat completions (JSON, 32 connections, rate limit, persistence and billing on) through 1, 2 and 4 server processes (`WEB_CONCURRENCY`) on one database, and through one process with metrics off (`METRICS_PORT=0`) and with traces on (OTLP/HTTP to a collector that takes every export), in turns, three repetitions. The database is an embedded PostgreSQL of the bench's own, so its CPU and WAL are the calls' alone: per answered call its CPU time and WAL bytes, and from the CPU the bills per second one database core sustains with our statements. The load generator, the fake upstream and the database share the machine's cores with the servers, so more processes than cores measure contention, not capacity.",
    goals:
      "Metrics on cost at most 3 % of the req/s with them off. The rest has none: the numbers feed [Operations: Scaling](operations.md#scaling).",
  },
  {
    file: "sandbox",
    title: "Python sandbox",
    command: "npm run bench -- --sandbox-only",
    measures:
      "Tool-call latency through the warm pool with 4 companies calling at once, with and without recycling; cold starts with and without the Pyodide snapshot; the pool's memory; what a forced tool call adds to a run.",
    goals: "Warm calls p50 under 5 ms and p99 under 50 ms.",
    numbers: (r) => [
      table(
        ["warm pool", "calls/s", "p50 ms", "p99 ms"],
        ((r.warm ?? []) as Result[]).map((w) => [w.label, num(w.callsPerS, 0), num(w.p50Ms, 2), num(w.p99Ms)]),
      ),
      table(
        ["cold start", "ms"],
        [
          ["boot without snapshot", num(r.cold?.withoutSnapshotMs, 0)],
          ["make the snapshot", num(r.cold?.snapshotMakeMs, 0)],
          ["boot from snapshot", num(r.cold?.fromSnapshotMs, 0)],
        ],
      ),
      `Pool memory: ${num(r.memory?.poolRssMb, 0)} MiB for ${r.memory?.processes ?? "–"} processes. A forced tool call adds ${num(r.toolRun?.addedP50Ms)} ms at p50 to a run.`,
    ],
  },
  {
    file: "knowledge",
    title: "Knowledge retrieval",
    command: "npm run bench -- --knowledge-only",
    measures:
      "Retrieval quality on the Cranfield collection through the search endpoint against MiniSearch, search latency at 10,000 and 100,000 chunks, and indexing throughput. Needs the Cranfield files (`CRANFIELD_DIR`); without them the quality part is skipped.",
    goals: "nDCG@10 at least 1.05 × the peer's; search p95 under 100 ms at 100,000 chunks without pgvector.",
    numbers: (r) => [
      table(
        ["engine", "nDCG@10", "recall@10"],
        [
          ["ours", num(r.cranfield?.ours?.ndcg10, 4), num(r.cranfield?.ours?.recall10, 4)],
          [
            r.cranfield?.peer?.name,
            num(r.cranfield?.peer?.quality?.ndcg10, 4),
            num(r.cranfield?.peer?.quality?.recall10, 4),
          ],
        ],
      ),
      table(
        ["chunks", "search p50 ms", "search p95 ms", "first search ms", "RSS growth at the first search MiB"],
        ((r.latency?.results ?? []) as Result[]).map((l) => [
          num(l.chunks, 0),
          num(l.p50Ms),
          num(l.p95Ms),
          num(l.coldMs, 0),
          num(l.cacheRssMb),
        ]),
      ),
      table(
        ["indexing", "chunks", "docs/s", "chunks/s"],
        ((r.indexing?.synthetic ?? []) as Result[]).map((s) => [
          `${num(s.target, 0)} chunks`,
          num(s.chunks, 0),
          num(s.docsPerS),
          num(s.chunksPerS, 0),
        ]),
      ),
    ],
  },
  {
    file: "sdk",
    title: "SDK services",
    command: "npm run bench -- --sdk-only",
    measures:
      "`GET /v1/sdk/view/…` and `POST /v1/sdk/action` latency and throughput at 1 and 32 connections over seeded data.",
    goals: "None set: the numbers are for comparison between runs.",
  },
  {
    file: "widget",
    title: "Widget",
    command: "npm run bench -- --widget-only",
    measures:
      "The widget bundle's gzipped size, and Chromium's time from the `<script>` tag to the first rendered view, cold and warm.",
    goals: "Gzipped bundle under 15 KiB.",
    numbers: (r) => [
      table(
        ["bundle bytes", "gzipped bytes", "goal"],
        [[num(r.bundle?.bytes, 0), num(r.bundle?.gzipBytes, 0), `< ${num(r.bundle?.goalGzipBytes, 0)}`]],
      ),
      table(
        ["first render", "median ms", "max ms"],
        [
          ["cold", num(r.firstRender?.cold?.medianMs), num(r.firstRender?.cold?.maxMs)],
          ["warm", num(r.firstRender?.warm?.medianMs), num(r.firstRender?.warm?.maxMs)],
        ],
      ),
    ],
  },
  {
    file: "webhooks",
    title: "Inbound webhooks",
    command: "npm run bench:webhooks",
    measures:
      "`POST /v1/public/triggers/…` at 32 connections, closed loop and at steady rates, with the events processed by the server's jobs thread (a `local` agent run each); then events processed per second and the lag from the 202 to the run's start.",
    goals: "Trigger p99 under 20 ms at a steady rate.",
    numbers: webhookNumbers,
  },
  {
    file: "webhooks-worker-process",
    title: "Inbound webhooks, separate worker",
    command: "npm run bench:webhooks -- --worker-process 10",
    measures: "The same with the events left to a separate `npm run worker` at nice 10.",
    goals: "As above.",
    numbers: webhookNumbers,
  },
  {
    file: "webhooks-no-runs",
    title: "Inbound webhooks, no agent",
    command: "npm run bench:webhooks -- --no-runs",
    measures: "The same with events no agent matches: acceptance and routing alone.",
    goals: "As above.",
    numbers: webhookNumbers,
  },
];

/** The machine and commit of a run, in the fields the benches use. */
function runLine(r: Result): string {
  const m: Result = r.machine ?? {};
  const cpu = m.cpuModel ?? m.cpu ?? m.model ?? r.cpuModel;
  const cpus = m.cpus ?? r.cpus;
  const node = m.node ?? r.node;
  const parts = [
    cpus ? `${cpus} cores${cpu ? ` (${cpu})` : ""}` : null,
    node ? `Node ${node}` : null,
    r.database?.mode ? `PostgreSQL ${r.database.mode === "embedded" ? "embedded" : "server"}` : null,
    r.git?.commit ? `commit ${String(r.git.commit).slice(0, 7)}` : null,
  ].filter(Boolean);
  return parts.length ? `Latest run: ${parts.join(", ")}.` : "Latest run.";
}

function verdicts(r: Result): string | null {
  const list = (r.verdicts ?? []) as Result[];
  if (!list.length) return null;
  return table(
    ["goal", "value", "target", "result"],
    list.map((v) => [v.name, v.value == null ? "–" : `${num(v.value, 2)} ${v.unit ?? ""}`.trim(), v.target, v.result]),
  );
}

function section(bench: Bench): string {
  const file = path.join(RESULTS_DIR, `${bench.file}-latest.json`);
  const out = [
    `## ${bench.title}`,
    `Run: \`${bench.command}\``,
    `**Measures.** ${bench.measures}`,
    `**Goals.** ${bench.goals}`,
  ];
  if (!fs.existsSync(file)) return [...out, "No results yet."].join("\n\n");
  const r = JSON.parse(fs.readFileSync(file, "utf8")) as Result;
  out.push(`${runLine(r)} Source: \`bench/results/${bench.file}-latest.json\`.`);
  const v = verdicts(r);
  if (v) out.push(v);
  if (typeof r.table === "string") out.push("```text\n" + r.table.trimEnd() + "\n```");
  if (bench.numbers) out.push(...bench.numbers(r));
  return out.join("\n\n");
}

export async function renderBenchmarksPage(): Promise<string> {
  const head = [
    "# Benchmarks",
    "<!-- Generated by `npm run bench:docs` (bench/write-docs.ts) from bench/results/*-latest.json; do not edit by hand. -->",
    "This page is generated by `npm run bench:docs` from `bench/results/*-latest.json`; `npm run bench` rewrites it at its end.",
    "The server benches run the checkout's production build. Every bench creates its own database: a fresh `cockpit_bench_…` database on the server of `DATABASE_URL` (dropped afterwards), else an embedded PostgreSQL in a temporary directory. The load generator, the server and the database share the machine's cores, so the rows report CPU per request and the unrelated load seen during the run. A goal missed is reported as MISS and never fails the command; an invalid run (errors, unexpected statuses, missing bills) exits 1.",
    "`npm run bench` runs them all in order (foundation, chat completions, large bodies, database outage, scaling, sandbox, knowledge, SDK, widget); `-- --<name>-only` runs one. The webhooks benches run on their own.",
    "Tools for investigating a result, whose output is not on this page: `npm run bench:webhooks -- --gc` lines each slow answer up with the server's garbage collections; `npm run bench:promoted -- --port P` samples what a server started with `--inspect=127.0.0.1:P` (through `BENCH_NODE_ARGS`) promotes to its old generation, by the app's source line; `bench/profile.ts`, `bench/breakdown.ts` and `bench/db-micro.ts` profile one endpoint (`--body` for a POST against the fake upstream), the steps of `/v1/me` and the database work alone. `npm run bench:compare` prints each goal of the latest results beside the same goal of the version committed before them (`-- --against REV` for another), so a change to the hot path reports its delta.",
  ];
  // A run is named by its commit; a timestamp a bench prints inside its own table is left out.
  const markdown = `${[...head, ...BENCHES.map(section)].join("\n\n")}\n`.replace(
    /\b20\d\d-\d\d-\d\d(?:[T ][\d:.]+Z?)?/g,
    "…",
  );
  // Formatted as `prettier --check .` expects, so a regenerated page passes the format check.
  const options = await prettier.resolveConfig(OUT);
  return prettier.format(markdown, { ...options, filepath: OUT });
}

const OPERATIONS = path.join(ROOT, "docs/operations.md");
const SCALING_BLOCK = /(<!-- generated:scaling \(npm run bench:docs\) -->\n)[\s\S]*?(<!-- \/generated:scaling -->)/;

function latest(file: string): Result | null {
  const f = path.join(RESULTS_DIR, `${file}-latest.json`);
  return fs.existsSync(f) ? (JSON.parse(fs.readFileSync(f, "utf8")) as Result) : null;
}

/** The measured capacity facts of docs/operations.md "Scaling", from the scaling and knowledge results. */
function scalingFacts(): string[] {
  const scaling = latest("scaling");
  const knowledge = latest("knowledge");
  const out: string[] = [];
  const summary = (scaling?.summary ?? []) as Result[];
  const one = summary.find((s) => s.setup === "1 process");
  if (one) {
    const disk = (scaling?.diskBytesPerCall ?? {}) as Record<string, number>;
    const diskTotal = Object.values(disk).reduce((a, b) => a + b, 0);
    out.push(
      `- **Bills per second.** A chat completion (its rate-limit, credit and persist-and-bill statements) costs the database ${num(one.dbCpuMsPerReq, 2)} ms of CPU: about ${num(one.billsPerDbCoreS, 0)} bills per second per database core. It writes ${num(one.walBytesPerCall, 0)} bytes of WAL${
        diskTotal
          ? ` and leaves ${num(diskTotal, 0)} bytes on disk (${Object.entries(disk)
              .map(([t, b]) => `\`${t}\` ${num(b, 0)}`)
              .join(", ")})`
          : ""
      }.`,
    );
    out.push(
      `- **Server processes.** Chat completions at ${scaling?.connections ?? 32} connections: ${summary
        .filter((s) => /^\d+ process(es)?$/.test(s.setup))
        .map((s) => `${s.setup} ${num(s.rps, 0)} req/s (${s.rpsSpread})`)
        .join(
          ", ",
        )}, on ${scaling?.machine?.cpus ?? "?"} cores shared with the database, the fake upstream and the load generator.`,
    );
  }
  const big = ((knowledge?.latency?.results ?? []) as Result[]).find((l) => l.chunks >= 100_000);
  if (big)
    out.push(
      `- **Knowledge cache.** ${num(big.chunks, 0)} chunks of one company: the first search after a start loads them in ${num(big.coldMs, 0)} ms${typeof big.cacheRssMb === "number" ? ` and the process's RSS grows by ${num(big.cacheRssMb, 0)} MiB` : ""}; later searches take ${num(big.p95Ms)} ms at p95.`,
    );
  return out.length ? out : ["- No results yet: run `npm run bench:scaling` and the knowledge bench."];
}

/** docs/operations.md with its generated "Scaling" facts replaced. */
async function renderOperationsPage(): Promise<string> {
  const page = fs.readFileSync(OPERATIONS, "utf8");
  if (!SCALING_BLOCK.test(page)) throw new Error("docs/operations.md lost its generated:scaling markers");
  const markdown = page.replace(
    SCALING_BLOCK,
    (_m, open: string, close: string) => `${open}\n${scalingFacts().join("\n")}\n\n${close}`,
  );
  const options = await prettier.resolveConfig(OPERATIONS);
  return prettier.format(markdown, { ...options, filepath: OPERATIONS });
}

export async function writeBenchmarksPage(): Promise<string> {
  fs.writeFileSync(OUT, await renderBenchmarksPage());
  fs.writeFileSync(OPERATIONS, await renderOperationsPage());
  return `${path.relative(ROOT, OUT)} and ${path.relative(ROOT, OPERATIONS)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.stdout.write(`wrote ${await writeBenchmarksPage()}\n`);
}
