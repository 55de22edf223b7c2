/**
 * SDK services benchmark: view fetch and action latency through the production server
 * (key auth, rate limit, scope check, the service's queries), at 1 and 32 connections.
 *
 *   view crm/pipeline       GET, 300 deals over five stages: two queries (sums by stage, 25 newest cards per stage)
 *   view crm/deals          GET ?limit=20: one page of the deals table
 *   view billing/invoices   GET ?limit=20, 150 invoices: a page plus totals by status
 *   action create_deal      POST, no idempotency_key: one insert in a transaction
 *   action create_deal+key  POST with a fresh idempotency_key per request: claim row + insert + result update
 *   action update_deal_stage POST moving the seeded deals round the stages: row lock, update, history row
 *   action replay           POST repeating one idempotency_key: answered from the stored result
 *
 * No targets: the numbers are reported (p50/p99 per row), never judged. Keys are rotated (four
 * 100,000/min keys) so no row meets a 429. Invalid (exit 1) on any non-2xx or connection error.
 *
 *   npm run bench -- --sdk-only [--sdk-duration 10]
 *   tsx bench/sdk.ts [--duration 10 --warmup 3 --connections 1,32 --quiet-wait 30 --isolated-build --rebuild --only replay,pipeline --name sdk-try]
 *
 * Database: DATABASE_URL set → a fresh cockpit_bench_<timestamp> database on that server (dropped
 * afterwards); unset → an embedded PostgreSQL in a temp dir. Results: bench/results/sdk-<timestamp>.json
 * and sdk-latest.json.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createCompany, createKeys } from "./lib/admin";
import { provisionDatabase, type BenchDatabase } from "./lib/db";
import { measure, type Measurement, type MeasureSpec } from "./lib/measure";
import { RssSampler } from "./lib/proc";
import { appEnv, prepareBuild, ROOT, startNext, type NextServer, type PreparedBuild } from "./lib/server";
import { fmt, renderTable } from "./lib/table";

export interface SdkBenchOptions {
  durationS?: number;
  warmupS?: number;
  connections?: number[];
  /** Max seconds to wait before each row for unrelated load to drop below 0.3 cores (0 = no wait). */
  quietWaitS?: number;
  isolatedBuild?: boolean;
  rebuild?: boolean;
  name?: string;
  /** Only the rows whose label contains one of these (investigation; default every row). */
  only?: string[];
}

const RESULTS_DIR = path.join(ROOT, "bench/results");
const SEED_DEALS = 300;
const SEED_INVOICES = 150;
const STAGES = ["lead", "qualified", "proposal", "won", "lost"];
/** Above this many cores of unrelated load during a row, its numbers are flagged as disturbed. */
const NOISY_OTHER_CORES = 0.25;

async function post(
  server: NextServer,
  key: string,
  body: unknown,
): Promise<{ status: number; json: { result?: { id?: string } } }> {
  const res = await fetch(`${server.baseUrl}/v1/sdk/action`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { result?: { id?: string } } };
}

export async function runSdkBench(options: SdkBenchOptions = {}): Promise<{ valid: boolean; errors: string[] }> {
  const o = {
    durationS: options.durationS ?? 10,
    warmupS: options.warmupS ?? 3,
    connections: options.connections ?? [1, 32],
    quietWaitS: options.quietWaitS ?? 30,
    name: options.name ?? "sdk",
  };
  const started = new Date();
  const log = (m: string) => process.stderr.write(`[bench:sdk] ${m}\n`);
  const errors: string[] = [];
  const measurements: Measurement[] = [];
  let db: BenchDatabase | undefined;
  let build: PreparedBuild | undefined;
  let server: NextServer | undefined;
  let rss: RssSampler | undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-sdk-bench-"));
  try {
    db = await provisionDatabase({ serverUrl: process.env.DATABASE_URL || undefined });
    build = await prepareBuild({ isolated: options.isolatedBuild, force: options.rebuild });
    server = await startNext({ env: appEnv(db.url, dataDir), appRoot: build.appRoot });
    rss = new RssSampler(server.pid).start();
    const companyId = await createCompany(db.url, "sdk bench");
    const keys = await createKeys(db.url, companyId, 4);
    const key = keys[0]!.secret;
    log(`server pid ${server.pid}; seeding ${SEED_DEALS} deals and ${SEED_INVOICES} invoices`);
    const dealIds: string[] = [];
    for (let i = 0; i < SEED_DEALS; i++) {
      const r = await post(server, key, {
        service: "crm",
        action: "create_deal",
        input: {
          title: `Deal ${i}`,
          contact: `Contact ${i % 37}`,
          amount: `${100 + i}.${i % 100}`,
          stage: STAGES[i % 5],
        },
      });
      if (r.status !== 200) throw new Error(`seeding create_deal: HTTP ${r.status} ${JSON.stringify(r.json)}`);
      dealIds.push(r.json.result!.id!);
    }
    for (let i = 0; i < SEED_INVOICES; i++) {
      const input = {
        customer: `Customer ${i}`,
        line_items: [
          { description: "Hours", quantity: 1 + (i % 9), unit_price: "85.50" },
          { description: "Licence", quantity: 1, unit_price: "19.99" },
        ],
      };
      const r = await post(server, key, { service: "billing", action: "create_invoice", input });
      if (r.status !== 200) throw new Error(`seeding create_invoice: HTTP ${r.status} ${JSON.stringify(r.json)}`);
    }
    const replayBody = {
      service: "crm",
      action: "create_deal",
      input: { title: "Replayed", amount: "1.00" },
      idempotency_key: "bench-replay",
    };
    if ((await post(server, key, replayBody)).status !== 200) throw new Error("seeding the replayed action failed");

    const rotateHeaders = keys.map((k) => ({ authorization: `Bearer ${k.secret}` }));
    const json = { "content-type": "application/json" };
    const runId = Date.now().toString(36);
    type Row = Omit<MeasureSpec, "connections" | "durationS" | "warmupS">;
    const rows: Row[] = [
      { label: "view crm/pipeline", path: "/v1/sdk/view/crm/pipeline?sdui=1" },
      { label: "view crm/deals", path: "/v1/sdk/view/crm/deals?sdui=1&limit=20" },
      { label: "view billing/invoices", path: "/v1/sdk/view/billing/invoices?sdui=1&limit=20" },
      {
        label: "action create_deal",
        path: "/v1/sdk/action",
        method: "POST",
        headers: json,
        bodyFor: (n) =>
          JSON.stringify({ service: "crm", action: "create_deal", input: { title: `Load ${n}`, amount: "10.00" } }),
      },
      {
        label: "action create_deal+key",
        path: "/v1/sdk/action",
        method: "POST",
        headers: json,
        bodyFor: (n) =>
          JSON.stringify({
            service: "crm",
            action: "create_deal",
            input: { title: `Keyed ${n}`, amount: "10.00" },
            idempotency_key: `${runId}-${n}-${Math.random()}`,
          }),
      },
      {
        label: "action update_deal_stage",
        path: "/v1/sdk/action",
        method: "POST",
        headers: json,
        // Consecutive requests move different deals; each pass round the deals moves each one stage on.
        bodyFor: (n) =>
          JSON.stringify({
            service: "crm",
            action: "update_deal_stage",
            input: {
              deal_id: dealIds[n % dealIds.length],
              stage: STAGES[(Math.floor(n / dealIds.length) + 1 + (n % dealIds.length)) % 5],
            },
          }),
      },
      {
        label: "action replay",
        path: "/v1/sdk/action",
        method: "POST",
        headers: json,
        body: JSON.stringify(replayBody),
      },
    ];
    const ctx = { server, rss, db };
    const quiet = o.quietWaitS > 0 ? { cores: 0.3, maxWaitMs: o.quietWaitS * 1000 } : undefined;
    for (const row of rows.filter((r) => !options.only?.length || options.only.some((w) => r.label.includes(w)))) {
      for (const c of o.connections) {
        log(`${row.label} @${c}c: warmup ${o.warmupS}s + ${o.durationS}s`);
        measurements.push(
          await measure(ctx, {
            ...row,
            connections: c,
            durationS: o.durationS,
            warmupS: o.warmupS,
            rotateHeaders,
            quiet,
          }),
        );
      }
    }
  } catch (err) {
    errors.push((err as Error).stack ?? String(err));
    log(`ERROR: ${(err as Error).message}${server ? `\n${server.logTail()}` : ""}`);
  } finally {
    rss?.stop();
    await server?.stop().catch(() => {});
    await db?.cleanup().catch(() => {});
    build?.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  const invalid: string[] = [];
  for (const m of measurements) {
    if (m.non2xx > 0)
      invalid.push(`${m.label} @${m.connections}c: ${m.non2xx} non-2xx ${JSON.stringify(m.statusCodes)}`);
    if (m.errors > 0)
      invalid.push(`${m.label} @${m.connections}c: ${m.errors} connection errors (${m.timeouts} timeouts)`);
  }
  const disturbed = measurements
    .filter((m) => m.otherCores !== null && m.otherCores > NOISY_OTHER_CORES)
    .map(
      (m) =>
        `${m.label} @${m.connections}c: other processes kept ${fmt(m.otherCores, 2)} cores busy (${m.otherTop.map((t) => `${t.comm} ${fmt(t.cores, 2)}`).join(", ")})`,
    );
  const table = renderTable(
    ["target", "conns", "req/s", "p50 ms", "p99 ms", "non-2xx", "srv CPU ms/req", "db CPU ms/req", "other cores"],
    measurements.map((m) => [
      m.label,
      String(m.connections),
      fmt(m.rps, 0),
      fmt(m.p50, 2),
      fmt(m.p99, 2),
      String(m.non2xx),
      fmt(m.serverCpuMsPerReq, 3),
      m.dbCpuMsPerReq === null ? "-" : fmt(m.dbCpuMsPerReq, 3),
      m.otherCores === null ? "-" : fmt(m.otherCores, 2),
    ]),
  );
  const out = process.stdout;
  out.write(`\nSDK services benchmark — ${started.toISOString()}\n`);
  out.write(
    `node ${process.version}, ${os.cpus().length} cpu; ${SEED_DEALS} deals, ${SEED_INVOICES} invoices seeded; warmup ${o.warmupS}s, ${o.durationS}s per row, pipelining 1\n\n${table}\n`,
  );
  if (disturbed.length)
    out.write(`\nDISTURBED (unrelated load; numbers are pessimistic):\n  ${disturbed.join("\n  ")}\n`);
  if (invalid.length) out.write(`\nINVALID RUN:\n  ${invalid.join("\n  ")}\n`);
  if (errors.length) out.write(`\nERRORS:\n  ${errors.join("\n  ")}\n`);
  const record = {
    name: o.name,
    schema: 1,
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    valid: invalid.length === 0 && errors.length === 0,
    invalid,
    disturbed,
    errors,
    machine: {
      node: process.version,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      loadavgAtStart: os.loadavg(),
    },
    database: db ? { mode: db.mode, name: db.name, where: db.where } : null,
    build: build ? { ...build.build, isolated: build.isolated } : null,
    settings: {
      durationS: o.durationS,
      warmupS: o.warmupS,
      connections: o.connections,
      seedDeals: SEED_DEALS,
      seedInvoices: SEED_INVOICES,
      keys: 4,
    },
    measurements,
    table,
  };
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = started.toISOString().replaceAll(":", "-");
  const text = `${JSON.stringify(record, null, 2)}\n`;
  fs.writeFileSync(path.join(RESULTS_DIR, `${o.name}-${stamp}.json`), text);
  fs.writeFileSync(path.join(RESULTS_DIR, `${o.name}-latest.json`), text);
  out.write(`\nsaved bench/results/${o.name}-${stamp}.json and bench/results/${o.name}-latest.json\n`);
  return { valid: record.valid, errors };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "3" },
      connections: { type: "string", default: "1,32" },
      "quiet-wait": { type: "string", default: "30" },
      "isolated-build": { type: "boolean", default: false },
      rebuild: { type: "boolean", default: false },
      /** Comma-separated parts of row labels to run, e.g. "replay,pipeline". */
      only: { type: "string", default: "" },
      /** Results file name (`sdk`); an experiment's own name keeps sdk-latest.json as it is. */
      name: { type: "string", default: "sdk" },
    },
    strict: true,
  });
  runSdkBench({
    only: values.only ? values.only.split(",") : undefined,
    name: values.name,
    durationS: Number(values.duration),
    warmupS: Number(values.warmup),
    connections: values.connections!.split(",").map(Number),
    quietWaitS: Number(values["quiet-wait"]),
    isolatedBuild: values["isolated-build"],
    rebuild: values.rebuild,
  })
    .then((r) => process.exit(r.valid ? 0 : 1))
    .catch((err: unknown) => {
      process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    });
}
