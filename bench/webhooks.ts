/**
 * Inbound webhooks benchmark, printed and saved to bench/results/webhooks-latest.json:
 *
 *  (a) Trigger latency: POST /v1/public/triggers/{company}/{secret} at 32 connections for
 *      --duration seconds with the worker running in the same server (every 202 is an event and
 *      its job committed). Goal: p99 under 20 ms. Closed loop (each connection sends again as soon
 *      as it is answered): the server's saturation, where latency is 32 ÷ throughput; then open
 *      loop at the steady --rates over the same 32 connections (latency from each request's due
 *      time, queueing included).
 *  (b) Events processed per second: the backlog (a) left, drained by the server's worker with a
 *      `local` agent (local-mini: no upstream), from the first 202 to the last event `done`.
 *  (c) Lag from the 202 to the run's start (the run row's creation), p50/p99: under (a)'s burst
 *      (queueing included) and at a paced 20 events/s that the worker keeps up with.
 *
 *   npm run bench:webhooks [-- --duration 10 --connections 32 --rates 250,500,1000 --rate-duration 5
 *                              --no-runs --floor --cpu-prof --profile-drain --gc --worker-process 10]
 *
 * Database: DATABASE_URL set → a fresh cockpit_bench_<timestamp> database on that server, dropped
 * at the end; unset → an embedded PostgreSQL in a temp dir. Uses the checkout's build.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { admin, createCompany, createKey } from "./lib/admin";
import { provisionDatabase, type BenchDatabase } from "./lib/db";
import { summarizeProfileWindows } from "./lib/cpuprofile-window";
import { runLoad } from "./lib/load";
import { attributeToGc, readGcTrace, type GcAttribution } from "./lib/gc-trace";
import { runPaced, type PacedResult } from "./lib/paced";
import { appEnv, cleanEnv, prepareBuild, ROOT, startNext, type NextServer } from "./lib/server";
import { fmt, renderTable } from "./lib/table";

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    paced: { type: "string", default: "200" },
    // Open-loop rates (req/s over 32 connections, --rate-duration s each, worker running): latency
    // at a steady load, where the closed-loop row measures saturation (bench/lib/paced.ts).
    rates: { type: "string", default: "250,500,1000" },
    "rate-duration": { type: "string", default: "5" },
    // The endpoint publishes to the bus where no agent listens: events end `done` with no run, so
    // the trigger is measured without runs competing for the server's CPU.
    "no-runs": { type: "boolean", default: false },
    // The server under `node --cpu-prof`, stopped right after the burst (no drain, nothing saved):
    // where the trigger's CPU goes, summarised.
    "cpu-prof": { type: "boolean", default: false },
    // With --cpu-prof: stop after the backlog is drained instead (the worker's CPU; use a short --duration).
    "profile-drain": { type: "boolean", default: false },
    // The same load with a body the route refuses (400, no event_topic) after every step but the
    // durable write: the route's floor on this machine, printed, nothing saved.
    floor: { type: "boolean", default: false },
    // Events processed by a separate `npm run worker` process at this nice level instead of the
    // server's own worker (the server then serves no events: WEBHOOK_WORKER_CONCURRENCY=0).
    "worker-process": { type: "string" },
    // The server under --trace-gc: each steady-rate row says how many answers over 20 ms overlapped
    // a garbage collection of the server's heap (bench/lib/gc-trace.ts) and the p99 without them.
    gc: { type: "boolean", default: false },
  },
});
const DURATION_S = Number(flags.duration);
const CONNECTIONS = Number(flags.connections);
const PACED = Number(flags.paced);
/** The separate worker's nice level (--worker-process), or undefined: the worker runs in the server. */
const WORKER_NICE = flags["worker-process"] === undefined ? undefined : Number(flags["worker-process"]) || 0;
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function drain(sql: postgres.Sql, companyId: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql<
      { open: number }[]
    >`SELECT count(*)::int AS open FROM webhook_events WHERE company_id = ${companyId} AND status NOT IN ('done', 'failed', 'dead')`;
    if (row!.open === 0) return;
    if (Date.now() > deadline) throw new Error(`${row!.open} events still open after ${timeoutMs} ms`);
    await sleep(500);
  }
}

async function stats(sql: postgres.Sql, companyId: string, since: Date) {
  const [row] = await sql<
    {
      events: number;
      done: number;
      other: number;
      span_s: number;
      lag_p50: number;
      lag_p99: number;
      runs_completed: number;
    }[]
  >`
    SELECT count(*)::int AS events,
           count(*) FILTER (WHERE e.status = 'done')::int AS done,
           count(*) FILTER (WHERE e.status <> 'done')::int AS other,
           extract(epoch FROM max(e.completed_at) - min(e.created_at))::float8 AS span_s,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM r.created_at - e.created_at) * 1000)::float8 AS lag_p50,
           percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM r.created_at - e.created_at) * 1000)::float8 AS lag_p99,
           count(*) FILTER (WHERE r.status = 'completed')::int AS runs_completed
    FROM webhook_events e
    LEFT JOIN webhook_event_runs c ON c.event_id = e.id
    LEFT JOIN runs r ON r.id = c.run_id
    WHERE e.company_id = ${companyId} AND e.created_at >= ${since}`;
  return row!;
}

async function main(): Promise<number> {
  let db: BenchDatabase | undefined;
  let server: NextServer | undefined;
  let sql: postgres.Sql | undefined;
  let workerProc: ChildProcess | undefined;
  let workerExited: Promise<string> | undefined;
  let stopping = false;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-bench-wh-"));
  try {
    await prepareBuild();
    db = await provisionDatabase({ serverUrl: process.env.DATABASE_URL || undefined });
    sql = postgres(db.url, { max: 2, onnotice: () => {} });
    const profileDir = flags["cpu-prof"] ? fs.mkdtempSync(path.join(os.tmpdir(), "webhooks-prof-")) : undefined;
    const gcLog = flags.gc ? (process.env.BENCH_SERVER_LOG ?? path.join(dataDir, "server.log")) : undefined;
    const serverEnv = { ...appEnv(db.url, dataDir), WEBHOOK_RATE_LIMIT_PER_MINUTE: "1000000", JOBS_IDLE_CHECK_S: "1" };
    server = await startNext({
      nodeArgs: [
        ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
        ...(gcLog ? ["--trace-gc"] : []),
      ],
      env: WORKER_NICE === undefined ? serverEnv : { ...serverEnv, WEBHOOK_WORKER_CONCURRENCY: "0" },
      logFile: gcLog,
    });
    if (WORKER_NICE !== undefined) {
      const tsx = path.join(ROOT, "node_modules/.bin/tsx");
      const child = spawn("nice", ["-n", String(WORKER_NICE), tsx, "--conditions=react-server", "scripts/worker.ts"], {
        cwd: ROOT,
        env: cleanEnv(serverEnv),
        stdio: ["ignore", "inherit", "inherit"],
      });
      workerExited = new Promise((resolve) => {
        child.once("exit", (code, signal) => resolve(`${code ?? signal}`));
        child.once("error", (err) => resolve(err.message)); // not started (no \`nice\`?): no exit event follows
      });
      // A worker that dies mid-bench would leave the drain to time out with no reason given.
      void workerExited.then((how) => stopping || log(`ERROR: the separate worker process exited (${how})`));
      workerProc = child;
      log(`separate worker process ${child.pid} at nice ${WORKER_NICE}`);
    }
    const companyId = await createCompany(db.url, "Webhook bench");
    await admin(db.url, ["credits", "grant", "--company", companyId, "--amount", "10000000"]);
    const key = await createKey(db.url, companyId, { scopes: ["chat"] });
    const profile = (await (
      await fetch(`${server.baseUrl}/v1/profiles`, {
        method: "POST",
        headers: { authorization: `Bearer ${key.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Bench conductor", model_slug: "local-mini" }),
      })
    ).json()) as { id: string };
    const agent = await admin(db.url, [
      "agent",
      "create",
      "--company",
      companyId,
      "--profile",
      profile.id,
      "--name",
      "Bench agent",
      "--topics",
      "orders.*",
    ]);
    const hook = await admin(db.url, [
      "webhook",
      "create",
      "--company",
      companyId,
      ...(flags["no-runs"] ? [] : ["--agent", String(agent.agent_id)]),
    ]);
    // With --no-runs the bus event's topic matches no agent's patterns.
    const topic = flags["no-runs"] ? "inventory.checked" : "orders.created";
    const url = `${server.baseUrl}${String(hook.url)}`;
    const body = JSON.stringify({ event_topic: topic, payload: { order: 42, items: [{ sku: "A-1", qty: 2 }] } });

    // Warm up: the route compiled, pg-boss started, the worker awake.
    for (let i = 0; i < 20; i++)
      await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
    await drain(sql, companyId, 60_000);

    log(
      `trigger @${CONNECTIONS}c for ${DURATION_S}s (worker running)${flags.floor ? ", floor: bodies refused with 400" : ""}`,
    );
    const burstStart = new Date();
    const fromNs = process.hrtime.bigint();
    const load = await runLoad({
      url,
      connections: CONNECTIONS,
      durationS: DURATION_S,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: flags.floor ? JSON.stringify({ payload: {} }) : body,
    });
    const toNs = process.hrtime.bigint();
    log(`${load.total} answers (${JSON.stringify(load.statusCodes)}); draining the backlog`);
    if (flags.floor)
      process.stdout.write(
        `floor (400 before the write) @${CONNECTIONS}c: p50 ${fmt(load.p50)} ms, p99 ${fmt(load.p99)} ms, ${fmt(load.rpsTotal, 0)} req/s\n`,
      );
    const drainFrom = process.hrtime.bigint();
    if (profileDir && flags["profile-drain"]) await drain(sql, companyId, 600_000);
    const drainTo = process.hrtime.bigint();
    if (profileDir) {
      log(
        `trigger p50 ${fmt(load.p50)} ms, p99 ${fmt(load.p99)} ms, ${fmt(load.rpsTotal, 0)} req/s (under --cpu-prof)`,
      );
      await server.stop();
      server = undefined;
      // The burst's samples only (or the drain's), per request: start-up and warm-up left out.
      const window = flags["profile-drain"]
        ? { fromNs: drainFrom, toNs: drainTo, requests: load.total }
        : { fromNs, toNs, requests: load.total };
      for (const f of fs.readdirSync(profileDir)) {
        const sum = summarizeProfileWindows(path.join(profileDir, f), [window], { top: 40 });
        process.stdout.write(
          `${f}: ${fmt(sum.busyMs, 0)} ms sampled in ${fmt(sum.windowMs, 0)} ms, ${fmt(sum.busyMsPerReq, 3)} ms per request\n`,
        );
        for (const a of sum.byArea)
          process.stdout.write(
            `  area ${a.area.padEnd(40)} ${fmt(a.perReqMs, 4).padStart(8)} ms/req ${fmt(a.pct, 1)}%\n`,
          );
        for (const fn of sum.byFunction)
          process.stdout.write(
            `  fn   ${fn.fn.slice(0, 90).padEnd(90)} ${fmt(fn.perReqMs, 4).padStart(8)} ms/req ${fmt(fn.pct, 1)}%\n`,
          );
      }
      return 0;
    }
    if (flags.floor) return 0;
    await drain(sql, companyId, 600_000);
    const burst = await stats(sql, companyId, burstStart);

    const rates: PacedResult[] = [];
    const gcRows = new Map<PacedResult, GcAttribution>();
    for (const rate of flags.rates.split(",").filter(Boolean).map(Number)) {
      log(`trigger @${CONNECTIONS}c paced at ${rate} req/s for ${flags["rate-duration"]}s (worker running)`);
      const r = await runPaced({
        url,
        rate,
        durationS: Number(flags["rate-duration"]),
        connections: CONNECTIONS,
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      log(
        `  p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, max ${fmt(r.max)} ms, ${fmt(r.achievedRate, 0)} answers/s ${JSON.stringify(r.statusCodes)}`,
      );
      if (gcLog) {
        await sleep(300); // the log stream's last writes
        const g = attributeToGc(r.samples, readGcTrace(gcLog));
        gcRows.set(r, g);
        log(
          `  gc: ${g.markCompacts} Mark-Compact (pause max ${fmt(g.markCompactPauseMaxMs)} ms, marking max ${fmt(g.markingMaxMs, 0)} ms), ${g.scavenges} Scavenge (pause max ${fmt(g.scavengePauseMaxMs)} ms); ` +
            `${g.slow} answers over 20 ms, ${g.slowDuringMarkCompact} of them during a Mark-Compact, ${g.slowDuringAnyGc} during any collection; p99 of the answers during none: ${fmt(g.p99WithoutMarkCompact)} ms`,
        );
      }
      rates.push(r);
    }
    if (rates.length) await drain(sql, companyId, 600_000);

    log(`paced: ${PACED} events at 20/s`);
    const pacedStart = new Date();
    const pacedAnswers: number[] = [];
    for (let i = 0; i < PACED; i++) {
      const t = performance.now();
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
      await res.arrayBuffer();
      pacedAnswers.push(res.status);
      await sleep(Math.max(0, 50 - (performance.now() - t)));
    }
    await drain(sql, companyId, 120_000);
    const paced = await stats(sql, companyId, pacedStart);

    const result = {
      at: new Date().toISOString(),
      connections: CONNECTIONS,
      runs: !flags["no-runs"],
      duration_s: DURATION_S,
      trigger: {
        rps: load.rpsTotal,
        p50_ms: load.p50,
        p99_ms: load.p99,
        status_codes: load.statusCodes,
        errors: load.errors,
      },
      trigger_paced: rates.map((r) => ({
        rate: r.rate,
        answers_per_s: r.achievedRate,
        p50_ms: r.p50,
        p99_ms: r.p99,
        max_ms: r.max,
        status_codes: r.statusCodes,
        errors: r.errors,
        ...(gcRows.has(r) ? { gc: gcRows.get(r) } : {}),
      })),
      worker: WORKER_NICE === undefined ? "in the server" : `separate process at nice ${WORKER_NICE}`,
      burst: {
        events: burst.events,
        done: burst.done,
        not_done: burst.other,
        events_per_s: burst.events / burst.span_s,
        lag_p50_ms: burst.lag_p50,
        lag_p99_ms: burst.lag_p99,
      },
      paced: {
        events: paced.events,
        done: paced.done,
        non_202: pacedAnswers.filter((s) => s !== 202).length,
        lag_p50_ms: paced.lag_p50,
        lag_p99_ms: paced.lag_p99,
      },
    };
    const table = renderTable(
      ["measure", "value", "goal"],
      [
        [`trigger p50 @${CONNECTIONS}c (ms)`, fmt(load.p50), ""],
        [`trigger p99 @${CONNECTIONS}c (ms)`, fmt(load.p99), "< 20"],
        ["trigger req/s", fmt(load.rpsTotal, 0), ""],
        ...rates.map((r) => [
          `trigger p50 / p99 @${CONNECTIONS}c at a steady ${r.rate} req/s (ms)`,
          `${fmt(r.p50)} / ${fmt(r.p99)}`,
          "< 20",
        ]),
        ["events processed/s (local agent, backlog)", fmt(result.burst.events_per_s, 1), ""],
        ["lag 202 → run start p50 / p99, burst (ms)", `${fmt(burst.lag_p50, 0)} / ${fmt(burst.lag_p99, 0)}`, ""],
        ["lag 202 → run start p50 / p99, 20 events/s (ms)", `${fmt(paced.lag_p50, 0)} / ${fmt(paced.lag_p99, 0)}`, ""],
        ["events done / accepted", `${burst.done + paced.done} / ${burst.events + paced.events}`, "all"],
      ],
      { leftColumns: 1 },
    );
    process.stdout.write(`${table}\n`);
    const dir = path.join(ROOT, "bench/results");
    fs.mkdirSync(dir, { recursive: true });
    // The default topology (the worker in the server, as `npm start` runs it) keeps webhooks-latest.json.
    const name = `webhooks${flags["no-runs"] ? "-no-runs" : ""}${WORKER_NICE === undefined ? "" : "-worker-process"}-latest.json`;
    fs.writeFileSync(path.join(dir, name), `${JSON.stringify(result, null, 2)}\n`);
    const ratesOk = rates.every((r) => r.errors === 0 && (r.statusCodes["202"] ?? 0) === r.sent);
    return burst.other === 0 && paced.other === 0 && load.non2xx === 0 && ratesOk ? 0 : 1;
  } finally {
    stopping = true;
    await server?.stop();
    workerProc?.kill("SIGTERM");
    await workerExited;
    await sql?.end();
    await db?.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`ERROR: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);
