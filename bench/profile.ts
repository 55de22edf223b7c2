/**
 * Where does the server's CPU go for one endpoint? Starts a throw-away database and a production
 * server under `node --cpu-prof`, loads one path, stops the server and summarises the profile
 * (self time by package/area and by function, inclusive time of a few app functions).
 *
 *   npx tsx bench/profile.ts --path /v1/me --connections 32 --duration 10 [--redis] [--keys 2]
 *   npx tsx bench/profile.ts --path /v1/responses --body '{"model":"gpt-4.1-mini","input":"Hi"}'
 *
 * --body: POST it (JSON); the server's OpenAI group then points at the benchmarks' fake upstream.
 *
 * The profile spans the whole server life (start-up and warm-up included, a few % of samples);
 * the .cpuprofile stays in bench/results/profiles/ for DevTools / speedscope.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startUpstream } from "./completions";
import { admin, createCompany, createKeys } from "./lib/admin";
import { summarizeProfile } from "./lib/cpuprofile";
import { provisionDatabase, type BenchDatabase } from "./lib/db";
import { measure } from "./lib/measure";
import { RssSampler } from "./lib/proc";
import { appEnv, prepareBuild, ROOT, startNext, type NextServer } from "./lib/server";
import { fmt, renderTable } from "./lib/table";

const { values: flags } = parseArgs({
  options: {
    "isolated-build": { type: "boolean", default: false },
    path: { type: "string", default: "/v1/me" },
    connections: { type: "string", default: "32" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "3" },
    redis: { type: "boolean", default: false },
    keys: { type: "string", default: "3" },
    body: { type: "string" },
    top: { type: "string", default: "30" },
    /** Only summarise an existing .cpuprofile. */
    summarize: { type: "string" },
  },
  strict: true,
});
// --isolated-build: build and serve a private copy (see prepareBuild in lib/server.ts).

const INCLUSIVE = [
  "lib/http/api-route.ts",
  "lib/auth/authenticate.ts",
  "lib/keys/key-cache.ts",
  "lib/http/rate-limit.ts",
  "lib/rate-limit/limiter.ts",
  "lib/companies/get-company.ts",
  "lib/http/log-request.ts",
  "lib/http/request-id.ts",
  "rate-limiter-flexible",
  "drizzle-orm",
  "node_modules/postgres/",
  "ioredis",
  "pino",
  "node:crypto",
  "deps/undici",
  "next-server",
  "(garbage collector)",
];

function report(files: string[], requests?: number, appRoot = ROOT): void {
  const top = Number(flags.top);
  for (const f of files) {
    const s = summarizeProfile(f, { top, inclusive: INCLUSIVE, root: appRoot });
    // µs per request: the profile spans start-up + warm-up + the measured run, so this slightly overstates.
    const per = (ms: number) => (requests ? fmt((ms * 1000) / requests, 0) : "-");
    process.stdout.write(
      `\nprofile ${path.relative(ROOT, s.file)}: ${fmt(s.totalMs, 0)} ms of non-idle samples${requests ? ` over ${requests} requests (${per(s.totalMs)} µs/req)` : ""}\n\n`,
    );
    process.stdout.write(
      `${renderTable(
        ["area (self time)", "ms", "%", "µs/req"],
        s.byArea.map((a) => [a.area, fmt(a.selfMs, 0), fmt(a.pct, 1), per(a.selfMs)]),
      )}\n\n`,
    );
    process.stdout.write(
      `${renderTable(
        ["function (self time)", "ms", "%", "µs/req"],
        s.byFunction.map((a) => [a.fn, fmt(a.selfMs, 0), fmt(a.pct, 1), per(a.selfMs)]),
      )}\n\n`,
    );
    process.stdout.write(
      `${renderTable(
        ["inclusive (stack contains)", "ms", "%", "µs/req"],
        s.inclusive.map((a) => [a.match, fmt(a.totalMs, 0), fmt(a.pct, 1), per(a.totalMs)]),
      )}\n`,
    );
  }
}

async function main(): Promise<void> {
  if (flags.summarize) return report([flags.summarize]);
  const prepared = await prepareBuild({ isolated: flags["isolated-build"] });
  try {
    await profileOnce(prepared.appRoot);
  } finally {
    prepared.cleanup();
  }
}

async function profileOnce(appRoot: string): Promise<void> {
  const stamp = new Date().toISOString().replaceAll(":", "-");
  const profDir = path.join(
    ROOT,
    "bench/results/profiles",
    `${stamp}-${flags.path!.replace(/\W+/g, "_")}${flags.redis ? "-redis" : ""}`,
  );
  fs.mkdirSync(profDir, { recursive: true });
  let db: BenchDatabase | undefined;
  let server: NextServer | undefined;
  let upstream: Awaited<ReturnType<typeof startUpstream>> | undefined;
  let requests = 0;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-bench-data-"));
  try {
    db = await provisionDatabase({ serverUrl: process.env.DATABASE_URL || undefined });
    const companyId = await createCompany(db.url, "Bench profile");
    const keys = flags.path!.startsWith("/v1/") ? await createKeys(db.url, companyId, Number(flags.keys)) : [];
    if (flags.body) {
      upstream = await startUpstream();
      await admin(db.url, ["credits", "grant", "--company", companyId, "--amount", "100000000", "--note", "profile"]);
    }
    server = await startNext({
      appRoot,
      env: {
        ...appEnv(db.url, dataDir),
        ...(upstream ? { OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: upstream.openaiBase } : {}),
        ...(flags.redis ? { REDIS_URL: "redis://127.0.0.1:6379" } : {}),
      },
      nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profDir}`],
    });
    const rss = new RssSampler(server.pid).start();
    const m = await measure(
      { server, rss, db },
      {
        label: flags.path!,
        path: flags.path!,
        connections: Number(flags.connections),
        durationS: Number(flags.duration),
        warmupS: Number(flags.warmup),
        rotateHeaders: keys.map((k) => ({ authorization: `Bearer ${k.secret}` })),
        ...(flags.body ? { method: "POST", body: flags.body, headers: { "content-type": "application/json" } } : {}),
      },
    );
    rss.stop();
    requests = m.total + m.warmupRequests;
    process.stdout.write(
      `${flags.path} @${m.connections}c${flags.redis ? " (redis)" : ""}: ${fmt(m.rps, 0)} req/s, p50 ${fmt(m.p50, 3)} ms, p99 ${fmt(m.p99, 3)} ms, ` +
        `non-2xx ${m.non2xx}, server CPU ${fmt(m.serverCpuMsPerReq, 3)} ms/req (${fmt(m.serverCpuCores, 2)} cores), ` +
        `db CPU ${m.dbCpuMsPerReq === null ? "-" : fmt(m.dbCpuMsPerReq, 3)} ms/req, box busy ${fmt(m.machineBusyPct, 0)} %\n`,
    );
  } finally {
    await server?.stop(20_000);
    upstream?.rss.stop();
    await upstream?.service.stop();
    await db?.cleanup();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const files = fs.readdirSync(profDir).filter((f) => f.endsWith(".cpuprofile"));
  if (files.length === 0) throw new Error(`no .cpuprofile written in ${profDir}`);
  // Before the isolated copy goes: its .next holds the source maps.
  report(
    files.map((f) => path.join(profDir, f)),
    requests,
    appRoot,
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
