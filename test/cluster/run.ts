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
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Redis from "ioredis";
import postgres from "postgres";
import { buildWidget } from "../../scripts/build-widget";
import { freePort } from "../support/next-server";
import { CALL_KINDS, PAID_KINDS, planCalls, send, type Outcome, type PlannedCall } from "./calls";
import { pgOptions, startRedis } from "./infra";
import { checks, quantile, storeSwitches, table } from "./report";
import type { ClusterEnv, ClusterRuntime } from "./runtime";
import { processRuntime } from "./runtime-processes";
import { GRANT_SHARE, REDIS_CUT_MS, SHUTDOWN_GRACE_MS } from "./settings";
import { verify, type LimitRun } from "./verify";

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const CALLS = flag("--calls") ? Number(args[args.indexOf("--calls") + 1]) : 5_000;
const SEED = 0xc1a5;
const CONCURRENCY = 32;
const MODEL = "gpt-4o-mini";
/** What the fake upstream reports for every model call. */
const USAGE = { prompt: 400, completion: 60 };
const USAGE_EVENT_S = 30;
/** Slow calls on app 1 when it gets SIGTERM (besides the plan's): half JSON, half streams. */
const LINGERING_CALLS = 6;
/** Per-key limits of the rate-limit check: one counted call by call, one taken in grants (lib/rate-limit). */
const EXACT_LIMIT = 60;
const GRANTED_LIMIT = 640;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

async function run(ctx: { work: string; logDir: string; cleanups: (() => Promise<unknown>)[]; dbName: string }) {
  const { cleanups } = ctx;
  // Loaded once DATABASE_URL names the fresh database: the client is built at import.
  const [
    { db, sql },
    { makeCompany, makeKey, makeCollection, makeWebhookAgent },
    { startFakeUpstream },
    { startTcpProxy },
  ] = await Promise.all([
    import("@/db/client"),
    import("../support/factories"),
    import("../support/fake-upstream"),
    import("../support/tcp-proxy"),
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
  const { url: triggerUrl } = await makeWebhookAgent(db, { companyId: company.id, model: MODEL });

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
  const limits: LimitRun[] = [];
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

  await verify({
    sql,
    company,
    calls: CALLS,
    outcomes,
    events,
    exitCode,
    lingering,
    planByI,
    byMarker,
    markerOf,
    taskErrors,
    samples,
    grantMicro,
    expectedMicro,
    revocations,
    limits,
    searchMs,
    accepted,
    uploaded,
  });

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
