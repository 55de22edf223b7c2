/**
 * `npm run test:cluster`: two app processes and one separate worker on one fresh PostgreSQL
 * database and one Redis (reached through a TCP proxy that can cut it), a fake upstream on loopback,
 * and 5,000 mixed calls over both apps on a company whose balance runs out midway, while app 1 is
 * SIGTERMed and restarted and Redis is cut for 5 s. Each property of a deployment on several
 * machines is one check; the run ends with the line `N passed, N failed`.
 *
 * Flags: --no-build reuses the existing .next build; --calls N plans N calls instead of 5,000;
 * --keep keeps the database. CLUSTER_RUNTIME=containers runs the apps and the worker as containers
 * of CLUSTER_IMAGE (./runtime-containers); the default is processes of this checkout.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import Redis from "ioredis";
import postgres from "postgres";
import { buildWidget } from "../../scripts/build-widget";
import { CALL_KINDS, PAID_KINDS, planCalls, send, type CallKind, type Outcome, type PlannedCall } from "./calls";
import type { ClusterEnv, ClusterRuntime } from "./runtime";
import { processRuntime } from "./runtime-processes";

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const CALLS = flag("--calls") ? Number(args[args.indexOf("--calls") + 1]) : 5_000;
const SEED = 0xc1a5;
const CONCURRENCY = 32;
const MODEL = "gpt-4o-mini";
/** What the fake upstream reports for every model call. */
const USAGE = { prompt: 400, completion: 60 };
const USAGE_EVENT_S = 30;
/** The grant covers this share of the plan's expected cost: the balance runs out midway. */
const GRANT_SHARE = 0.5;
const SHUTDOWN_GRACE_MS = 1_500;
/** Slow calls on app 1 when it gets SIGTERM (besides the plan's): half JSON, half streams. */
const LINGERING_CALLS = 6;
const REDIS_CUT_MS = 5_000;
/** After Redis returns, calls may still be counted in PostgreSQL until the circuit closes. */
const REDIS_RECOVERY_MS = 1_000;
const REVOKE_WITHIN_MS = 1_000;
const SEARCHABLE_WITHIN_MS = 2_000;
/** Per-key limits of the rate-limit check: one counted call by call, one taken in grants (lib/rate-limit). */
const EXACT_LIMIT = 60;
const GRANTED_LIMIT = 640;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ot = (micro: number) => (micro / 1_000_000).toFixed(4);

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}
const checks: Check[] = [];
function check(name: string, ok: boolean, detail: string): void {
  checks.push({ name, ok, detail });
  process.stdout.write(`${ok ? "✓" : "✗"} ${name}\n    ${detail.split("\n").join("\n    ")}\n`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });
}

/** A Redis of its own when redis-server is installed, else the machine's 6379 with a database of its own. */
async function startRedis(): Promise<{ port: number; db: number; stop: () => Promise<void> }> {
  if (spawnSync("redis-server", ["--version"]).status === 0) {
    const port = await freePort();
    const child: ChildProcess = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
      { stdio: "ignore" },
    );
    process.once("exit", () => child.kill("SIGKILL"));
    for (let i = 0; i < 100 && !(await accepts(port)); i++) await sleep(50);
    const stop = () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
    return { port, db: 0, stop };
  }
  if (!(await accepts(6379)))
    throw new Error("the cluster test needs redis-server installed or a Redis on 127.0.0.1:6379");
  return { port: 6379, db: 11, stop: async () => {} };
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c]!)).join("  ")).join("\n");
}

async function pickRuntime(logDir: string): Promise<ClusterRuntime> {
  if (process.env.CLUSTER_RUNTIME !== "containers") return processRuntime(logDir);
  const image = process.env.CLUSTER_IMAGE;
  if (!image) throw new Error("CLUSTER_RUNTIME=containers needs CLUSTER_IMAGE");
  // Built beside this file by the container stage; a computed path, so this runs without it.
  const modulePath = new URL("./runtime-containers.ts", import.meta.url).href;
  const mod = (await import(modulePath)) as { containerRuntime: (image: string) => ClusterRuntime };
  return mod.containerRuntime(image);
}

async function main(): Promise<void> {
  const started = Date.now();
  if (!flag("--no-build")) {
    await buildWidget();
    const build = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
      stdio: "inherit",
      env: { ...process.env, NODE_ENV: "production" },
    });
    if (build.status !== 0) throw new Error(`next build failed (${build.status})`);
  }

  // A fresh database on the DATABASE_URL server, migrated, used by this run alone.
  const server = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");
  const dbName = `cockpit_cluster_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`;
  const admin = postgres({ ...pgOptions(server), database: server.pathname.slice(1) || "postgres", max: 1 });
  await admin.unsafe(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(server);
  dbUrl.hostname = dbUrl.hostname === "localhost" ? "127.0.0.1" : dbUrl.hostname;
  dbUrl.pathname = `/${dbName}`;
  process.env.DATABASE_URL = dbUrl.toString();
  process.env.REDIS_URL = "";
  process.env.LOG_LEVEL ??= "warn";

  const work = fs.mkdtempSync(path.join(os.tmpdir(), "cockpit-cluster-"));
  const logDir = path.join(work, "logs");
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const { runMigrations } = await import("@/db/migrate");
    await runMigrations(process.env.DATABASE_URL);
    await run({ work, logDir, cleanups, dbName });
  } finally {
    for (const c of cleanups.reverse()) await c().catch((err: unknown) => console.error("cleanup:", err));
    if (flag("--keep")) console.log(`database kept: ${dbName}`);
    else await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
    await admin.end();
    const passed = checks.length > 0 && checks.every((c) => c.ok);
    // The uploads, data dirs and logs stay for a failed run only.
    if (passed) fs.rmSync(work, { recursive: true, force: true });
    console.log(`${passed ? "" : `process logs: ${logDir}; `}whole run ${Math.round((Date.now() - started) / 1000)} s`);
  }
}

function pgOptions(url: URL) {
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    username: decodeURIComponent(url.username || "postgres"),
    password: url.password ? decodeURIComponent(url.password) : undefined,
    onnotice: () => {},
  };
}

async function run(ctx: { work: string; logDir: string; cleanups: (() => Promise<unknown>)[]; dbName: string }) {
  const { cleanups } = ctx;
  // Loaded once DATABASE_URL names the fresh database: the client is built at import.
  const [{ db, sql }, { makeCompany, makeKey, makeCollection }, { startFakeUpstream }, { startTcpProxy }] =
    await Promise.all([
      import("@/db/client"),
      import("../support/factories"),
      import("../support/fake-upstream"),
      import("../support/tcp-proxy"),
    ]);
  const [{ createProfile, CreateProfileInput }, { createAgent }, { createWebhook, triggerPath }] = await Promise.all([
    import("@/lib/profiles"),
    import("@/lib/agents"),
    import("@/lib/webhooks"),
  ]);
  const [{ costMicro }, { usageCostMicro }] = await Promise.all([
    import("@/lib/models/pricing"),
    import("@/lib/billing/rates"),
  ]);
  cleanups.push(() => sql.end({ timeout: 1 }));

  const redis = await startRedis();
  cleanups.push(redis.stop);
  const proxy = await startTcpProxy("127.0.0.1", redis.port);
  cleanups.push(() => proxy.close());

  const plan = planCalls(CALLS, SEED);
  // Slow calls sent to app 1 alone just before its SIGTERM: they outlast the grace, so the shutdown cancels them.
  const lingering: PlannedCall[] = Array.from({ length: LINGERING_CALLS }, (_, k) => {
    const i = CALLS + k;
    const stream = k % 2 === 0;
    return {
      i,
      kind: "chat-slow",
      stream,
      marker: `cluster-${String(i).padStart(4, "0")} [slow-${stream ? "stream" : "json"}]`,
    };
  });
  const planByI = new Map([...plan, ...lingering].map((c) => [c.i, c]));
  const byMarker = new Map([...plan, ...lingering].map((c) => [c.marker, c]));
  const markerOf = (text: string) => /cluster-\d{4,}( \[slow-(stream|json)\])?/.exec(text)?.[0];
  const reachedUpstream = new Set<string>();
  const fake = await startFakeUpstream({
    usage: (_body, _reply, cap) => ({
      prompt: USAGE.prompt,
      completion: Math.min(USAGE.completion, cap ?? USAGE.completion),
    }),
    behaviourFor: (body) => {
      const marker = markerOf(JSON.stringify(body.messages ?? []));
      if (marker?.endsWith("[slow-stream]")) return { kind: "paced", firstTokenMs: 200, intervalMs: 150, chunks: 30 };
      if (marker?.endsWith("[slow-json]")) return { kind: "delay", ms: 4_000 };
      return { kind: "delay", ms: 30 };
    },
    onRequest: (record) => {
      const marker = markerOf(JSON.stringify(record.body.messages ?? []));
      if (marker) reachedUpstream.add(marker);
    },
  });
  cleanups.push(() => fake.close());

  // The tenant: its balance is set below from the catalog's price, once the apps seeded it.
  const company = await makeCompany(db, { name: "Cluster Co" });
  const main = await makeKey(db, { companyId: company.id, rateLimitPerMinute: 1_000_000, name: "load" });
  const collectionId = (await makeCollection(db, { companyId: company.id, name: "Handbook" })).id;
  const profile = await createProfile(db, {
    companyId: company.id,
    input: CreateProfileInput.parse({ name: "Conductor", model_slug: MODEL }),
  });
  const agent = await createAgent(db, {
    companyId: company.id,
    input: { name: "Orders", conductor_profile_id: profile.id, topics: ["orders.*"] },
  });
  const webhook = await createWebhook(db, { companyId: company.id, agentId: agent.id });
  const triggerUrl = triggerPath(company.id, webhook.secret);

  const ports = [await freePort(), await freePort()];
  const base: ClusterEnv = {
    DATABASE_URL: process.env.DATABASE_URL!,
    REDIS_URL: proxy.url(`redis://127.0.0.1:${redis.port}/${redis.db}`),
    AUTH_SECRET: randomBytes(32).toString("hex"),
    OPENAI_BASE_URL: fake.openaiBase,
    OPENAI_API_KEY: "sk-cluster-upstream",
    GEMINI_API_KEY: "",
    VISION_MODEL: "",
    UPSTREAM_RETRIES: "0",
    LOG_LEVEL: "warn",
    KNOWLEDGE_STORAGE_DIR: path.join(ctx.work, "knowledge"),
    JOBS_IDLE_CHECK_S: "1",
    WEBHOOK_RATE_LIMIT_PER_MINUTE: "100000",
    METRICS_PORT: "0",
  };
  const appEnv = (i: number): ClusterEnv => ({
    ...base,
    HOST: "127.0.0.1",
    PORT: String(ports[i]),
    DATA_DIR: path.join(ctx.work, `app-${i}`),
    SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_MS),
    // Background jobs run on the separate worker only.
    WEBHOOK_WORKER_CONCURRENCY: "0",
    KNOWLEDGE_WORKER_CONCURRENCY: "0",
  });
  const runtime = await pickRuntime(ctx.logDir);
  cleanups.push(() => runtime.stopAll());
  const t0 = Date.now();
  const urls = (await Promise.all([0, 1].map((i) => runtime.startApp(i, appEnv(i))))).map((a) => a.url);
  await runtime.startWorker({
    ...base,
    DATA_DIR: path.join(ctx.work, "worker"),
    WEBHOOK_WORKER_CONCURRENCY: "4",
    KNOWLEDGE_WORKER_CONCURRENCY: "2",
  });
  const bootMs = Date.now() - t0;

  // The balance: GRANT_SHARE of what the plan would cost at the catalog's price.
  const [price] = await sql<{ i: string; c: string; o: string }[]>`
    SELECT input_micro_per_m AS i, cached_input_micro_per_m AS c, output_micro_per_m AS o FROM models WHERE slug = ${MODEL}`;
  if (!price) throw new Error(`model ${MODEL} is not in the catalog`);
  const callCost = costMicro(
    { promptTokens: USAGE.prompt, cachedTokens: 0, completionTokens: USAGE.completion },
    { inputMicroPerM: Number(price.i), cachedInputMicroPerM: Number(price.c), outputMicroPerM: Number(price.o) },
  );
  const usageCost = usageCostMicro("voice_call", USAGE_EVENT_S);
  const expectedMicro = plan.reduce(
    (s, c) => s + (c.kind === "usage" ? usageCost : PAID_KINDS.has(c.kind) || c.kind === "webhook" ? callCost : 0),
    0,
  );
  const grantMicro = Math.round(expectedMicro * GRANT_SHARE);
  const { grantCredits } = await import("@/lib/billing");
  await grantCredits(db, { companyId: company.id, amountMicro: grantMicro, entry: { source: "test" } });

  // Where calls go: app 1 leaves the rotation while it drains and comes back once ready again.
  const inRotation = [true, true];
  const appUrls = () => urls;
  const route = (i: number) => (inRotation[i % 2] ? i % 2 : 1 - (i % 2));
  const events: Record<string, number> = {};

  const outcomes: Outcome[] = [];
  /** A background task of the run that failed: reported as a failed check, never a crash that leaves processes behind. */
  const taskErrors: string[] = [];
  const guard = (name: string, task: Promise<unknown>): Promise<void> =>
    task.then(
      () => {},
      (err: unknown) => {
        taskErrors.push(`${name}: ${err instanceof Error ? err.message : String(err)}`);
      },
    );
  const samples: { at: number; balance: number; reserved: number }[] = [];
  let loading = true;
  const sampler = guard(
    "sampler",
    (async () => {
      while (loading) {
        const [row] = await sql<{ b: string; r: string }[]>`
        SELECT balance_micro AS b, reserved_micro AS r FROM companies WHERE id = ${company.id}`;
        samples.push({ at: Date.now(), balance: Number(row!.b), reserved: Number(row!.r) });
        await sleep(100);
      }
    })(),
  );

  // Documents: once one is ready, both apps are searched for its codeword until they find it.
  /** Per document and app: when the first search that found it was sent, and answered, after ready. */
  const searchMs: { doc: string; app: number; ms: number; answeredMs: number }[] = [];
  const probes: Promise<void>[] = [];
  const seenReady = new Set<string>();
  const appBackAt = [0, 0];
  const codeword = (i: number) => `quorvel${[...String(i)].map((d) => "abcdefghij"[Number(d)]).join("")}`;
  const docCodeword = new Map<string, string>();
  const searchUntilFound = async (doc: string, word: string, readyAt: number, app: number) => {
    for (;;) {
      if (!inRotation[app]) {
        await sleep(50);
        continue;
      }
      const from = Math.max(readyAt, appBackAt[app]!);
      const sentAt = Date.now();
      const res = await fetch(`${urls[app]}/v1/knowledge/${collectionId}/search`, {
        method: "POST",
        headers: { authorization: `Bearer ${main.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ query: word, top_k: 5 }),
      }).catch(() => null);
      const body = res?.ok ? ((await res.json()) as { data: { document_id: string }[] }) : null;
      if (body?.data.some((d) => d.document_id === doc)) {
        searchMs.push({ doc, app, ms: sentAt - from, answeredMs: Date.now() - from });
        return;
      }
      if (Date.now() - from > 15_000) {
        searchMs.push({ doc, app, ms: Infinity, answeredMs: Infinity });
        return;
      }
      await sleep(50);
    }
  };
  const watcher = guard(
    "watcher",
    (async () => {
      while (loading || probes.length < docCodeword.size * 2) {
        const ready = await sql<{ id: string; at: string }[]>`
        SELECT id, (extract(epoch FROM indexed_at) * 1000)::bigint AS at
        FROM knowledge_documents WHERE company_id = ${company.id} AND status = 'ready'`;
        for (const d of ready) {
          const word = docCodeword.get(d.id);
          if (seenReady.has(d.id) || !word) continue;
          seenReady.add(d.id);
          for (const app of [0, 1]) probes.push(guard("search", searchUntilFound(d.id, word, Number(d.at), app)));
        }
        if (!loading && Date.now() - events.loadEnd! > 120_000) break;
        await sleep(100);
      }
    })(),
  );

  const callOne = async (call: PlannedCall, toApp?: number): Promise<void> => {
    const app = toApp ?? route(call.i);
    const key = main.secret;
    const note = (o: Outcome): void => {
      outcomes.push(o);
    };
    const content = `Cluster check ${call.marker}: answer briefly.`;
    switch (call.kind) {
      case "chat":
      case "chat-stream":
      case "chat-slow":
        return note(
          await send(
            appUrls,
            app,
            {
              method: "POST",
              path: "/v1/chat/completions",
              key,
              stream: call.stream,
              json: {
                model: MODEL,
                messages: [{ role: "user", content }],
                max_tokens: USAGE.completion,
                ...(call.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
              },
            },
            { i: call.i, kind: call.kind },
          ),
        );
      case "run": {
        const thread = await send(
          appUrls,
          app,
          { method: "POST", path: "/v1/threads", key, json: { messages: [{ role: "user", content }] } },
          { i: call.i, kind: "thread" },
        );
        note(thread);
        if (thread.status !== 201) return;
        return note(
          await send(
            appUrls,
            thread.app,
            {
              method: "POST",
              path: `/v1/threads/${thread.id}/runs`,
              key,
              json: { model: MODEL, max_completion_tokens: USAGE.completion },
            },
            { i: call.i, kind: "run" },
          ),
        );
      }
      case "response":
        return note(
          await send(
            appUrls,
            app,
            {
              method: "POST",
              path: "/v1/responses",
              key,
              json: { model: MODEL, input: content, max_output_tokens: USAGE.completion },
            },
            { i: call.i, kind: "response" },
          ),
        );
      case "usage":
        return note(
          await send(
            appUrls,
            app,
            { method: "POST", path: "/v1/usage", key, json: { source: "voice_call", duration_s: USAGE_EVENT_S } },
            { i: call.i, kind: "usage" },
          ),
        );
      case "webhook":
        return note(
          await send(
            appUrls,
            app,
            { method: "POST", path: triggerUrl, json: { event_topic: "orders.created", payload: { n: call.i } } },
            { i: call.i, kind: "webhook" },
          ),
        );
      case "upload": {
        const word = codeword(call.i);
        const form = new FormData();
        const text = [
          `Cluster handbook page ${call.i}.`,
          `The ${word} valve sits behind the blue panel in room ${call.i}.`,
          "Close it before the pump is serviced, and open it again afterwards.",
        ].join("\n");
        form.append("file", new Blob([text], { type: "text/plain" }), `handbook-${call.i}.txt`);
        const out = await send(
          appUrls,
          app,
          { method: "POST", path: `/v1/knowledge/${collectionId}/documents`, key, form },
          { i: call.i, kind: "upload" },
        );
        if (out.status === 202 && out.id) docCodeword.set(out.id, word);
        return note(out);
      }
    }
  };

  // Side checks while the load runs, each at a share of the plan done.
  let done = 0;
  const waitDone = async (share: number) => {
    while (done < Math.floor(CALLS * share)) await sleep(50);
  };
  const revocations: { from: number; to: number; ms: number }[] = [];
  const limits: {
    limit: number;
    calls: number;
    ok: number;
    limited: number;
    other: Record<number, number>;
    header: string | null;
    /** The stores that counted the key: Redis, and PostgreSQL while a process's Redis circuit was open. */
    stores: string[];
  }[] = [];
  const redisReader = new Redis({ host: "127.0.0.1", port: redis.port, db: redis.db, lazyConnect: true });
  cleanups.push(async () => redisReader.disconnect());

  const revokeAcross = async (from: number, to: number) => {
    const victim = await makeKey(db, { companyId: company.id, name: `victim ${from}→${to}` });
    const me = (app: number) =>
      fetch(`${urls[app]}/v1/me`, { headers: { authorization: `Bearer ${victim.secret}` } }).then((r) => r.status);
    // Both apps know the key (and cache it) before it is revoked.
    if ((await me(from)) !== 200 || (await me(to)) !== 200)
      throw new Error("the victim key was refused before its revocation");
    const del = await fetch(`${urls[from]}/v1/sdk/keys/${victim.key.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${main.secret}` },
    });
    if (del.status !== 200) throw new Error(`revoking answered ${del.status}`);
    const revokedAt = Date.now();
    for (;;) {
      const status = await me(to);
      if (status === 401) return void revocations.push({ from, to, ms: Date.now() - revokedAt });
      if (Date.now() - revokedAt > 10_000) return void revocations.push({ from, to, ms: Infinity });
      await sleep(10);
    }
  };

  const limitAcross = async (limit: number, calls: number) => {
    const key = await makeKey(db, { companyId: company.id, rateLimitPerMinute: limit, name: `limit ${limit}` });
    const statuses: number[] = [];
    let header: string | null = null;
    let next = 0;
    await Promise.all(
      Array.from({ length: 24 }, async () => {
        while (next < calls) {
          const n = next++;
          const res = await fetch(`${urls[n % 2]}/v1/me`, { headers: { authorization: `Bearer ${key.secret}` } });
          await res.arrayBuffer();
          statuses.push(res.status);
          if (res.status === 429) header ??= res.headers.get("x-ratelimit-limit-requests");
        }
      }),
    );
    const other: Record<number, number> = {};
    for (const s of statuses) if (s !== 200 && s !== 429) other[s] = (other[s] ?? 0) + 1;
    const rlKey = `rl:key:${key.key.id}`;
    const [inPostgres] = await sql<{ points: number }[]>`SELECT points FROM rate_limits WHERE key = ${rlKey}`;
    const inRedis = Number((await redisReader.get(rlKey)) ?? 0);
    limits.push({
      stores: [...(inRedis > 0 ? ["Redis"] : []), ...(inPostgres ? ["PostgreSQL"] : [])],
      limit,
      calls,
      ok: statuses.filter((s) => s === 200).length,
      limited: statuses.filter((s) => s === 429).length,
      other,
      header,
    });
  };

  const sideChecks = guard(
    "sideChecks",
    (async () => {
      await waitDone(0.06);
      await Promise.all([revokeAcross(0, 1), revokeAcross(1, 0)]);
      await limitAcross(EXACT_LIMIT, EXACT_LIMIT * 2 + 30);
      await limitAcross(GRANTED_LIMIT, GRANTED_LIMIT + 260);
    })(),
  );

  let exitCode: number | null | undefined;
  const disruptions = guard(
    "disruptions",
    (async () => {
      await Promise.all([waitDone(0.2), sideChecks]);
      const slow = Promise.all(lingering.map((c) => callOne(c, 1)));
      const deadline = Date.now() + 10_000;
      while (lingering.some((c) => !reachedUpstream.has(c.marker)) && Date.now() < deadline) await sleep(20);
      // As a load balancer does on a termination notice: out of rotation first, then the signal.
      inRotation[1] = false;
      await sleep(200);
      events.sigterm = Date.now();
      exitCode = await runtime.stopApp(1, "SIGTERM");
      events.exit = Date.now();
      await slow;
      await runtime.startApp(1, appEnv(1));
      events.ready = Date.now();
      appBackAt[1] = events.ready;
      inRotation[1] = true;

      // Before the balance runs out (about half way), so paid calls are answered and billed through the cut.
      await waitDone(0.38);
      proxy.disable();
      events.cutStart = Date.now();
      await sleep(REDIS_CUT_MS);
      proxy.enable();
      events.cutEnd = Date.now();
    })(),
  );

  events.loadStart = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < plan.length) {
        const call = plan[next++]!;
        await callOne(call);
        done++;
      }
    }),
  );
  events.loadEnd = Date.now();
  // A short plan may end before its disruptions: they still happen, and the checks wait for them.
  await disruptions;
  await sideChecks;

  // Settle: background work finished, every lease given back, no bill still on its way.
  const settleDeadline = Date.now() + 180_000;
  const accepted = outcomes.filter((o) => o.kind === "webhook" && o.status === 202).map((o) => o.id!);
  const uploaded = outcomes.filter((o) => o.kind === "upload" && o.status === 202).map((o) => o.id!);
  let lastEntries = -1;
  for (;;) {
    const [s] = await sql<{ events: number; docs: number; reserved: string; held: number; entries: number }[]>`
      SELECT
        (SELECT count(*)::int FROM webhook_events WHERE company_id = ${company.id} AND status NOT IN ('done', 'failed', 'dead')) AS events,
        (SELECT count(*)::int FROM knowledge_documents WHERE company_id = ${company.id} AND status = 'pending') AS docs,
        (SELECT reserved_micro FROM companies WHERE id = ${company.id}) AS reserved,
        (SELECT count(*)::int FROM reservations WHERE company_id = ${company.id} AND status = 'held') AS held,
        (SELECT count(*)::int FROM ledger_entries WHERE company_id = ${company.id}) AS entries`;
    const settled = s!.events === 0 && s!.docs === 0 && Number(s!.reserved) === 0 && s!.held === 0;
    if ((settled && s!.entries === lastEntries) || Date.now() > settleDeadline) break;
    lastEntries = s!.entries;
    await sleep(1_000);
  }
  events.settled = Date.now();
  loading = false;
  await sampler;
  await watcher;
  await Promise.all(probes);

  // ---- The checks ----
  check(
    "the run's own tasks ran",
    taskErrors.length === 0,
    taskErrors.join("\n") || "sampler, watcher, side checks and disruptions",
  );
  const shutdownWindow = (o: Outcome) =>
    o.app === 1 && events.sigterm !== undefined && o.startedAt <= events.exit! && o.endedAt >= events.sigterm;
  const duringCut = (o: Outcome) =>
    events.cutStart !== undefined && o.endedAt >= events.cutStart && o.startedAt <= events.cutEnd! + REDIS_RECOVERY_MS;
  const window = (o: Outcome) => (shutdownWindow(o) ? "shutdown" : duringCut(o) ? "redis cut" : "normal");
  const success: Record<Outcome["kind"], number> = {
    chat: 200,
    "chat-stream": 200,
    "chat-slow": 200,
    thread: 201,
    run: 200,
    response: 200,
    usage: 201,
    webhook: 202,
    upload: 202,
  };
  /** The shutdown's cancel as SHUTDOWN_GRACE_MS states it: a JSON completion 503, a stream an error frame. */
  const cancelledByShutdown = (o: Outcome) =>
    shutdownWindow(o) &&
    ((o.status === 503 && o.error === "server_shutdown") || (o.status === 200 && o.errorFrame === "server_shutdown"));
  const unexpected = outcomes.filter((o) => {
    if (cancelledByShutdown(o)) return false;
    if (o.status === success[o.kind])
      return !!o.errorFrame || !!o.error || (o.kind !== "thread" && planByI.get(o.i)!.stream && o.done !== true);
    if (o.status === 402) return !(PAID_KINDS.has(o.kind as CallKind) && o.error === "insufficient_balance");
    return true;
  });
  const describe = (o: Outcome) =>
    `#${o.i} ${o.kind} app ${o.app} ${window(o)}: ${o.status}${o.error ? ` ${o.error}` : ""}${o.errorFrame ? ` frame ${o.errorFrame}` : ""} after ${o.endedAt - o.startedAt} ms`;
  const fiveXX = outcomes.filter((o) => o.status >= 500 && !cancelledByShutdown(o));
  const byWindow: Record<string, Record<string, number>> = {};
  for (const o of outcomes) {
    const w = (byWindow[window(o)] ??= {});
    const k = o.status === 0 ? "no answer" : String(o.status);
    w[k] = (w[k] ?? 0) + 1;
  }
  check(
    "every call answered as the contract says: its success, 402 once the balance is out, or the shutdown's cancel",
    unexpected.length === 0,
    `${outcomes.length} requests; by window ${JSON.stringify(byWindow)}; ${outcomes.filter(cancelledByShutdown).length} cancelled by the shutdown, ${outcomes.filter((o) => o.rerouted).length} rerouted from a refused connection` +
      (unexpected.length
        ? `\nunexpected ${unexpected.length}, e.g.\n${unexpected.slice(0, 8).map(describe).join("\n")}`
        : ""),
  );
  check(
    "no 5xx but the shutdown's 503 (none during the Redis cut)",
    fiveXX.length === 0,
    `${fiveXX.length} other 5xx; ${outcomes.filter(duringCut).length} requests overlapped the ${REDIS_CUT_MS} ms Redis cut` +
      (fiveXX.length ? `\n${fiveXX.slice(0, 8).map(describe).join("\n")}` : ""),
  );

  // Billing: ledger entries against the answers and the stored runs.
  const ledger = await sql<
    {
      id: string;
      kind: string;
      amount: string;
      reference_id: string | null;
      run_id: string | null;
      prompt_tokens: number | null;
      completion_tokens: number | null;
    }[]
  >`
    SELECT id, kind, amount_micro AS amount, reference_id, metadata->>'run_id' AS run_id, prompt_tokens, completion_tokens
    FROM ledger_entries WHERE company_id = ${company.id}`;
  const runRows = await sql<{ id: string; status: string; content: string | null }[]>`
    SELECT r.id, r.status,
      (SELECT m.content::text FROM messages m WHERE m.thread_id = r.thread_id AND m.role = 'user' ORDER BY m.seq LIMIT 1) AS content
    FROM runs r WHERE r.company_id = ${company.id}`;
  const claims = await sql<
    { event_id: string; run_id: string | null; thread_id: string | null; status: string; error: string | null }[]
  >`
    SELECT event_id, run_id, thread_id, status, error FROM webhook_event_runs WHERE company_id = ${company.id}`;
  const runById = new Map(runRows.map((r) => [r.id, r]));
  const agentRuns = new Set(claims.map((c) => c.run_id).filter((x): x is string => !!x));
  const debits = ledger.filter((e) => e.kind !== "grant");
  const entriesByRef = new Map<string, number>();
  for (const e of debits)
    if (e.reference_id) entriesByRef.set(e.reference_id, (entriesByRef.get(e.reference_id) ?? 0) + 1);
  const billable = outcomes.filter(
    (o) => PAID_KINDS.has(o.kind as CallKind) && o.status >= 200 && o.status < 300 && o.kind !== "thread",
  );
  const notOnce = billable.filter((o) => !o.id || entriesByRef.get(o.id) !== 1);
  check(
    "every answered paid call billed exactly once (a ledger entry whose reference is the id the client got)",
    notOnce.length === 0 && billable.length > 0,
    `${billable.length} answered paid calls; ${notOnce.length} not billed exactly once` +
      (notOnce.length
        ? `\n${notOnce
            .slice(0, 8)
            .map((o) => `${describe(o)} id ${o.id}: ${entriesByRef.get(o.id ?? "") ?? 0} entries`)
            .join("\n")}`
        : ""),
  );
  const answeredIds = new Set(billable.map((o) => o.id));
  const outcomeByI = new Map<number, Outcome[]>();
  for (const o of outcomes) outcomeByI.set(o.i, [...(outcomeByI.get(o.i) ?? []), o]);
  const category: Record<string, number> = {};
  const orphans: string[] = [];
  const refusedBilled: string[] = [];
  for (const e of debits) {
    let kind: string;
    if (e.reference_id && answeredIds.has(e.reference_id)) kind = "an answered call";
    else if (e.run_id && agentRuns.has(e.run_id)) kind = "an agent run woken by a webhook";
    else if (e.run_id && runById.has(e.run_id)) {
      const marker = markerOf(runById.get(e.run_id)!.content ?? "");
      const call = marker ? byMarker.get(marker) : undefined;
      const seen = call ? (outcomeByI.get(call.i) ?? []).filter((o) => o.kind !== "thread") : [];
      if (seen.some(cancelledByShutdown)) kind = "a call cancelled by the shutdown (what was generated)";
      else {
        kind = "another stored run";
        if (seen.some((o) => o.status === 402)) refusedBilled.push(`${e.id} (${marker})`);
      }
    } else {
      kind = "nothing";
      orphans.push(`${e.id} ${e.kind} ref ${e.reference_id} run ${e.run_id}`);
    }
    category[kind] = (category[kind] ?? 0) + 1;
  }
  const dupRefs = [...entriesByRef].filter(([, n]) => n > 1);
  const entriesByMarker = new Map<string, (typeof debits)[number][]>();
  for (const e of debits) {
    const marker = e.run_id ? markerOf(runById.get(e.run_id)?.content ?? "") : undefined;
    if (marker) entriesByMarker.set(marker, [...(entriesByMarker.get(marker) ?? []), e]);
  }
  check(
    "no ledger entry without an answered call or a stored run, none twice, none for a refused call",
    orphans.length === 0 && dupRefs.length === 0 && refusedBilled.length === 0,
    `${debits.length} debits: ${Object.entries(category)
      .map(([k, n]) => `${n} for ${k}`)
      .join(", ")}` +
      (orphans.length ? `\nwithout a call or run: ${orphans.slice(0, 5).join("; ")}` : "") +
      (dupRefs.length ? `\nreferenced twice: ${dupRefs.slice(0, 5).join("; ")}` : "") +
      (refusedBilled.length ? `\nbilled though answered 402: ${refusedBilled.slice(0, 5).join("; ")}` : ""),
  );

  const cut = lingering.map((c) => {
    const o = outcomes.find((x) => x.i === c.i)!;
    const bills = entriesByMarker.get(c.marker) ?? [];
    return { c, o, bills, ok: cancelledByShutdown(o) && bills.length === 1 };
  });
  check(
    "calls still running when the grace ends are cancelled as SHUTDOWN_GRACE_MS says and billed once for what was generated",
    cut.every((x) => x.ok),
    cut
      .map(
        ({ c, o, bills }) =>
          `${c.stream ? "stream" : "JSON"} #${c.i}: ${o.status}${o.error ? ` ${o.error}` : ""}${o.errorFrame ? ` frame ${o.errorFrame}` : ""} after ${o.endedAt - o.startedAt} ms; ${bills.length} ledger entries${bills.length ? ` (${bills.map((b) => `${b.prompt_tokens}+${b.completion_tokens} tokens, ${ot(-Number(b.amount))} O₮`).join(", ")})` : ""}`,
      )
      .join("\n"),
  );

  const [final] = await sql<{ balance: string; reserved: string; sum: string }[]>`
    SELECT balance_micro AS balance, reserved_micro AS reserved,
      (SELECT coalesce(sum(amount_micro), 0) FROM ledger_entries WHERE company_id = ${company.id}) AS sum
    FROM companies WHERE id = ${company.id}`;
  const minSample = Math.min(...samples.map((s) => s.balance));
  const minFree = Math.min(...samples.map((s) => s.balance - s.reserved));
  const firstRefusal = outcomes.filter((o) => o.status === 402).sort((a, b) => a.i - b.i)[0];
  check(
    "the balance never below zero, and the final balance is the sum of the ledger",
    minSample >= 0 && minFree >= 0 && Number(final!.balance) === Number(final!.sum) && Number(final!.reserved) === 0,
    `grant ${ot(grantMicro)} O₮ (${GRANT_SHARE * 100} % of the plan's ${ot(expectedMicro)} O₮); lowest of ${samples.length} samples ${ot(minSample)} O₮ (unreserved ${ot(minFree)}); final ${ot(Number(final!.balance))} O₮, ledger sum ${ot(Number(final!.sum))} O₮, reserved ${final!.reserved}`,
  );
  check(
    "the balance ran out midway",
    !!firstRefusal && firstRefusal.i > CALLS * 0.15 && firstRefusal.i < CALLS * 0.85,
    firstRefusal ? `first 402 at call #${firstRefusal.i} of ${CALLS}` : "no call was refused",
  );

  check(
    `a key revoked on one app is refused by the other within ${REVOKE_WITHIN_MS} ms`,
    revocations.length === 2 && revocations.every((r) => r.ms <= REVOKE_WITHIN_MS),
    revocations.map((r) => `revoked on app ${r.from}, refused by app ${r.to} after ${r.ms} ms`).join("; "),
  );
  check(
    "one rate limit across both apps, within its stated slack",
    limits.length === 2 && limits.every((l) => limitHolds(l).ok),
    limits
      .map((l) => {
        const { low, high } = limitHolds(l);
        return `${l.limit}/min: ${l.calls} calls alternating over both apps → ${l.ok} admitted, ${l.limited} 429${Object.keys(l.other).length ? `, other ${JSON.stringify(l.other)}` : ""}; counted in ${l.stores.join(" and ") || "no store"}; allowed ${low === high ? `exactly ${low}` : `${low}..${high}`}`;
      })
      .join("\n") +
      "\n(slack: a key counted in grants may leave one grant partly unused per app; around a switch of store a key may get its limit in each store)",
  );

  /**
   * The limits' stated slack (docs/operations.md, lib/rate-limit): never above the limit in each store
   * that counted the key, and below it only by what the apps' last grants left unused.
   */
  function limitHolds(l: (typeof limits)[number]): { ok: boolean; low: number; high: number } {
    const chunk = l.limit >= 640 ? Math.min(100, Math.floor(l.limit / 64)) : 1;
    const low = l.limit - 2 * (chunk - 1);
    const high = l.limit * Math.max(1, l.stores.length);
    const ok = l.ok >= low && l.ok <= high && l.ok + l.limited === l.calls && l.header === String(l.limit);
    return { ok, low, high };
  }

  // Webhooks: every accepted event final, one claim for its agent, at most one completed run.
  const eventRows = await sql<{ id: string; status: string }[]>`
    SELECT id, status FROM webhook_events WHERE company_id = ${company.id}`;
  const runsPerThread = await sql<{ thread_id: string; completed: number; total: number }[]>`
    SELECT thread_id, count(*) FILTER (WHERE status = 'completed')::int AS completed, count(*)::int AS total
    FROM runs WHERE company_id = ${company.id} AND thread_id IN (SELECT thread_id FROM webhook_event_runs WHERE company_id = ${company.id} AND thread_id IS NOT NULL)
    GROUP BY thread_id`;
  const threadRuns = new Map(runsPerThread.map((r) => [r.thread_id, r]));
  const claimsByEvent = new Map<string, (typeof claims)[number][]>();
  for (const c of claims) claimsByEvent.set(c.event_id, [...(claimsByEvent.get(c.event_id) ?? []), c]);
  const eventStatus = new Map(eventRows.map((e) => [e.id, e.status]));
  const badEvents: string[] = [];
  const eventTally: Record<string, number> = {};
  for (const id of accepted) {
    const status = eventStatus.get(id);
    const cs = claimsByEvent.get(id) ?? [];
    const runsOf = cs[0]?.thread_id ? threadRuns.get(cs[0].thread_id) : undefined;
    const reason = cs[0]?.status === "failed" ? ` (${cs[0].error?.split(":")[0]})` : "";
    eventTally[`${status}${reason}`] = (eventTally[`${status}${reason}`] ?? 0) + 1;
    if (status !== "done" && status !== "failed") badEvents.push(`${id}: ${status}`);
    else if (cs.length !== 1) badEvents.push(`${id}: ${cs.length} claims`);
    else if ((runsOf?.completed ?? 0) > 1) badEvents.push(`${id}: ${runsOf!.completed} completed runs`);
    else if (cs[0]!.status === "completed" && (runsOf?.completed !== 1 || entriesOfRun(cs[0]!.run_id) !== 1))
      badEvents.push(
        `${id}: completed with ${runsOf?.completed ?? 0} completed runs, ${entriesOfRun(cs[0]!.run_id)} ledger entries`,
      );
  }
  function entriesOfRun(runId: string | null): number {
    return debits.filter((e) => e.run_id === runId).length;
  }
  check(
    "each webhook event run once",
    badEvents.length === 0 && accepted.length > 0 && eventRows.length === accepted.length,
    `${accepted.length} events accepted, ${eventRows.length} stored: ${JSON.stringify(eventTally)}` +
      (badEvents.length ? `\n${badEvents.slice(0, 8).join("\n")}` : ""),
  );

  // Documents: ready, indexed by one attempt, every chunk stored once, searchable from both apps.
  const docs = await sql<
    { id: string; status: string; attempts: number; chunk_count: number; chunks: number; ms: number | null }[]
  >`
    SELECT d.id, d.status, d.attempts, d.chunk_count,
      (SELECT count(*)::int FROM knowledge_chunks c WHERE c.document_id = d.id) AS chunks,
      (extract(epoch FROM d.indexed_at - d.created_at) * 1000)::int AS ms
    FROM knowledge_documents d WHERE d.company_id = ${company.id}`;
  const badDocs = docs.filter(
    (d) => d.status !== "ready" || d.attempts !== 1 || d.chunk_count < 1 || d.chunks !== d.chunk_count,
  );
  check(
    "each document indexed once",
    badDocs.length === 0 && docs.length === uploaded.length && uploaded.length > 0,
    `${uploaded.length} uploads accepted, ${docs.length} documents, upload → ready p50 ${quantile(
      docs.map((d) => d.ms ?? 0),
      0.5,
    )} ms, max ${Math.max(...docs.map((d) => d.ms ?? 0))} ms` +
      (badDocs.length
        ? `\n${badDocs
            .slice(0, 8)
            .map(
              (d) =>
                `${d.id}: ${d.status}, ${d.attempts} attempts, ${d.chunks} chunks for chunk_count ${d.chunk_count}`,
            )
            .join("\n")}`
        : ""),
  );
  const slow = searchMs.filter((s) => s.ms > SEARCHABLE_WITHIN_MS);
  check(
    `each document searchable from both apps within ${SEARCHABLE_WITHIN_MS} ms of ready`,
    slow.length === 0 && searchMs.length === uploaded.length * 2,
    `${uploaded.length} documents, each searched on both apps until found: the search that found it sent after ready p50 ${quantile(
      searchMs.map((s) => s.ms),
      0.5,
    )} ms, p95 ${quantile(
      searchMs.map((s) => s.ms),
      0.95,
    )} ms, max ${Math.max(0, ...searchMs.map((s) => s.ms))} ms; answered after ready p50 ${quantile(
      searchMs.map((s) => s.answeredMs),
      0.5,
    )} ms, max ${Math.max(0, ...searchMs.map((s) => s.answeredMs))} ms` +
      (slow.length
        ? `\nslow: ${slow
            .slice(0, 8)
            .map((s) => `${s.doc} on app ${s.app}: sent ${s.ms} ms, answered ${s.answeredMs} ms after ready`)
            .join("; ")}`
        : ""),
  );
  check(
    "app 1 exits 0 on SIGTERM within the grace and restarts",
    exitCode === 0 && events.exit! - events.sigterm! <= SHUTDOWN_GRACE_MS + 10_000 && events.ready !== undefined,
    `exit code ${exitCode} after ${events.exit! - events.sigterm!} ms (grace ${SHUTDOWN_GRACE_MS} ms); ready again ${events.ready! - events.exit!} ms later`,
  );

  // ---- Summary ----
  const kinds = [...CALL_KINDS.slice(0, 3), "thread", ...CALL_KINDS.slice(3)] as Outcome["kind"][];
  const statuses = [...new Set(outcomes.map((o) => (o.status === 0 ? "none" : String(o.status))))].sort();
  const rows = [["kind", "calls", ...statuses, "p50 ms", "p95 ms", "max ms"]];
  for (const k of kinds) {
    const of = outcomes.filter((o) => o.kind === k);
    const ms = of.map((o) => o.endedAt - o.startedAt);
    rows.push([
      k,
      String(of.length),
      ...statuses.map((s) => String(of.filter((o) => (o.status === 0 ? "none" : String(o.status)) === s).length)),
      String(quantile(ms, 0.5)),
      String(quantile(ms, 0.95)),
      String(Math.max(0, ...ms)),
    ]);
  }
  const at = (t?: number) => (t === undefined ? "-" : `${((t - events.loadStart!) / 1000).toFixed(1)} s`);
  console.log(
    [
      "",
      `cluster (${process.env.CLUSTER_RUNTIME === "containers" ? "containers" : "processes"}): ${CALLS} planned calls, ${outcomes.length} requests, ${CONCURRENCY} in flight over 2 apps + 1 worker`,
      table(rows),
      `timeline: apps and worker up in ${bootMs} ms; load ${at(events.loadEnd)}; SIGTERM app 1 at ${at(events.sigterm)}, exited ${at(events.exit)}, ready ${at(events.ready)}; Redis cut ${at(events.cutStart)}–${at(events.cutEnd)}; settled ${at(events.settled)}`,
      `throughput ${Math.round((outcomes.length / (events.loadEnd! - events.loadStart!)) * 1000)} req/s; upstream requests ${fake.requests.length}`,
      storeSwitches(ctx.logDir, at),
      "",
    ].join("\n"),
  );
}

/** The apps' switches of rate-limit store, from their logs (plain processes only: containers log elsewhere). */
function storeSwitches(logDir: string, at: (t: number) => string): string {
  if (!fs.existsSync(logDir)) return "rate-limit store switches: no logs here";
  const lines: string[] = [];
  for (const file of fs
    .readdirSync(logDir)
    .filter((f) => f.startsWith("app-"))
    .sort()) {
    for (const line of fs.readFileSync(path.join(logDir, file), "utf8").split("\n")) {
      if (!line.includes('"rate_limit_store"')) continue;
      const entry = JSON.parse(line) as { time: number; redis: string; err?: { message?: string } };
      lines.push(
        `${file.replace(".log", "")} ${entry.redis} at ${at(entry.time)}${entry.err ? ` (${entry.err.message})` : ""}`,
      );
    }
  }
  return `rate-limit store switches: ${lines.length ? lines.join("; ") : "none"}`;
}

// Interrupted: exit through the `exit` handlers, which kill the processes this run started.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));

main().then(
  () => {
    const failed = checks.filter((c) => !c.ok).length;
    process.stdout.write(`${checks.length - failed} passed, ${failed} failed\n`);
    process.exit(failed === 0 ? 0 : 1);
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    const failed = checks.filter((c) => !c.ok).length + 1;
    process.stdout.write(`${checks.length - failed + 1} passed, ${failed} failed\n`);
    process.exit(1);
  },
);
