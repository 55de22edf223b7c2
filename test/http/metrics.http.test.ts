import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import net, { type AddressInfo } from "node:net";
import { and, eq, lt } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { ledgerEntries, runs, webhookEventRuns } from "@/db/schema";
import { getBoss, stopBoss } from "@/lib/jobs/boss";
import { sseData, useGateway } from "../support/gateway";
import { freePort, startNextServer, type RunningServer } from "../support/next-server";
import { labelValues, parsePrometheusText, samples, scrape, total, type Scrape } from "../support/prometheus";
import { makeCompany, makeKey, makeWebhookAgent } from "../support/factories";

/**
 * GET /metrics on METRICS_PORT (CONTRACT 10), read by a Prometheus text-format parser after real
 * traffic: the server's families with counts matching what was sent, no id as a label value, a
 * hostile client's model names creating no series; the cluster primary summing its workers; no
 * listener with METRICS_PORT=0; the separate worker's own /metrics with its job queues.
 */

const TOOL_CPU_OT_PER_S = 1000;
const USAGE = { prompt: 100, completion: 20, cached: 40 };
/** Our ids (lib/ids.ts) and the ones the issue names, and UUIDs: none may be a label value. */
const ID_LIKE =
  /(^|[^a-z])(co|cmp|usr|key|le|rsv|use|thread|msg|run|resp|tool|kc|doc|wh|evt)_[A-Za-z0-9]{6,}|[0-9a-f]{8}-[0-9a-f]{4}-/i;

const metricsEnv: Record<string, string> = {};
beforeAll(async () => {
  metricsEnv.METRICS_PORT = String(await freePort());
});
const gw = useGateway({
  env: metricsEnv,
  fake: { usage: () => USAGE },
});
Object.assign(metricsEnv, {
  REDIS_URL: "redis://127.0.0.1:6379",
  TOOL_CPU_OT_PER_S: String(TOOL_CPU_OT_PER_S),
  SANDBOX_TIMEOUT_MS: "5000",
});

const metricsUrl = (port: string | number) => `http://127.0.0.1:${port}`;

/** Scrapes until `ready` holds (what a response was sent for is recorded as its socket closes). */
async function scrapeUntil(base: string, ready: (s: Scrape) => boolean, ms = 10_000): Promise<Scrape> {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = await scrape(base);
    if (ready(s) || Date.now() > deadline) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Listening TCP ports of process `pid`: its sockets' inodes looked up in the kernel's TCP tables. */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const target = (() => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        return ""; // closed meanwhile
      }
    })();
    const m = /^socket:\[(\d+)\]$/.exec(target);
    if (m) inodes.add(m[1]!);
  }
  const ports: number[] = [];
  for (const table of ["tcp", "tcp6"])
    for (const line of readFileSync(`/proc/${pid}/net/${table}`, "utf8").split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is HEX_IP:HEX_PORT; state 0A is LISTEN; column 9 is the socket's inode.
      if (cols[3] === "0A" && inodes.has(cols[9]!)) ports.push(parseInt(cols[1]!.split(":")[1]!, 16));
    }
  return ports;
}

describe("GET /metrics after traffic", () => {
  let s: Scrape;
  let companyId: string;
  let ids: string[];
  const hostile = Array.from({ length: 40 }, (_, i) => `hostile-model-${i}-${Math.random().toString(36).slice(2)}`);

  beforeAll(async () => {
    const tenant = await gw.tenant(1000);
    companyId = tenant.companyId;
    const { key } = tenant;
    const chat = (body: Record<string, unknown>) =>
      fetch(`${gw.server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "hello there" }], ...body }),
      });

    const json = await chat({ model: "gpt-4o-mini" });
    expect(json.status).toBe(200);
    await json.text();
    const stream = await chat({ model: "gpt-4o-mini", stream: true });
    expect(stream.status).toBe(200);
    expect((await sseData(stream)).at(-1)).toBe("[DONE]");
    gw.fake.queue.push({ kind: "error", status: 500, message: "upstream broke" });
    const failed = await chat({ model: "gpt-4o-mini" });
    expect(failed.status).toBe(502);
    await failed.text();
    for (const model of hostile) {
      const r = await chat({ model });
      expect(r.status).toBe(404);
      await r.text();
    }

    const usage = await gw.call(key, "POST", "/v1/usage", { source: "voice_call", duration_s: 3 });
    expect(usage.status, JSON.stringify(usage.json)).toBe(201);
    const embedded = await gw.call(key, "POST", "/v1/embeddings", {
      model: "local-embedding",
      input: "some words to embed",
    });
    expect(embedded.status, JSON.stringify(embedded.json)).toBe(200);

    const tool = await gw.call(key, "POST", "/v1/tools", {
      name: "add",
      description: "adds",
      json_schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
      python_code: "def add(a, b):\n    return sum(i * i for i in range(200000)) * 0 + a + b\n",
    });
    expect(tool.status, JSON.stringify(tool.json)).toBe(201);
    const threadId = await gw.thread(key, [{ role: "user", content: 'add {"a": 2, "b": 40}' }]);
    const run = await gw.call(key, "POST", `/v1/threads/${threadId}/runs`, {
      model: "local-mini",
      tool_choice: { type: "function", function: { name: "add" } },
    });
    expect(run.status, JSON.stringify(run.json)).toBe(200);
    expect(run.json.tool_calls).toEqual([{ name: "add", args: { a: 2, b: 40 }, result: 42 }]);
    const steps = await gw.call(key, "GET", `/v1/threads/${threadId}/runs/${run.json.id}/steps`);
    expect(steps.status).toBe(200);
    const nowhere = await fetch(`${gw.server.url}/nowhere/${companyId}`);
    await nowhere.text();
    ids = [companyId, key, threadId, run.json.id, tool.json.id, usage.json.id];

    s = await scrapeUntil(
      metricsUrl(metricsEnv.METRICS_PORT!),
      (x) =>
        total(x, "cockpit_http_requests_total", { route: "/v1/threads/[threadId]/runs/[runId]/steps" }) === 1 &&
        total(x, "cockpit_billed_ot_total", { kind: "model" }) > 0 &&
        total(x, "cockpit_billed_ot_total", { kind: "usage_event" }) > 0 &&
        total(x, "cockpit_redis_state", { state: "up" }) === 1,
    );
  });

  it("counts requests by route pattern, method and status, with a latency histogram", () => {
    const counted = (route: string, method: string, status: string) =>
      total(s, "cockpit_http_requests_total", { route, method, status });
    const timed = (route: string, method: string, status: string) =>
      total(s, "cockpit_http_request_duration_seconds", { route, method, status });
    expect(counted("/v1/chat/completions", "POST", "200")).toBe(2);
    expect(counted("/v1/chat/completions", "POST", "502")).toBe(1);
    expect(counted("/v1/chat/completions", "POST", "404")).toBe(hostile.length);
    expect(counted("/v1/usage", "POST", "201")).toBe(1);
    expect(counted("/v1/embeddings", "POST", "200")).toBe(1);
    expect(counted("/v1/threads/[threadId]/runs", "POST", "200")).toBe(1);
    expect(counted("/v1/threads/[threadId]/runs/[runId]/steps", "GET", "200")).toBe(1);
    expect(counted("other", "GET", "404")).toBeGreaterThanOrEqual(1);
    for (const [route, method, status] of [
      ["/v1/chat/completions", "POST", "200"],
      ["/v1/threads/[threadId]/runs", "POST", "200"],
    ] as const)
      expect(timed(route, method, status)).toBe(counted(route, method, status));
    const hist = samples(s, "cockpit_http_request_duration_seconds", { route: "/v1/chat/completions", status: "200" });
    expect(hist[0]!.sum).toBeGreaterThan(0);
    expect(hist[0]!.buckets!["+Inf"]).toBe(2);
  });

  it("counts upstream calls by provider, model and outcome, with latency and time to first token", () => {
    const openai = { provider: "openai", model: "gpt-4o-mini" };
    expect(total(s, "cockpit_upstream_requests_total", { ...openai, outcome: "ok" })).toBe(2);
    expect(total(s, "cockpit_upstream_requests_total", { ...openai, outcome: "error" })).toBe(1);
    expect(total(s, "cockpit_upstream_request_duration_seconds", { ...openai, outcome: "ok" })).toBe(2);
    expect(total(s, "cockpit_upstream_time_to_first_token_seconds", openai)).toBe(1);
    // The tool run: one call asking for the tool, one answering with its result.
    expect(total(s, "cockpit_upstream_requests_total", { provider: "local", outcome: "ok" })).toBe(2);
  });

  it("counts tokens by model and kind, and O₮ billed by kind as the ledger has them", async () => {
    const tokens = (kind: string) => total(s, "cockpit_tokens_total", { model: "gpt-4o-mini", kind });
    expect(tokens("input")).toBe(2 * (USAGE.prompt - USAGE.cached));
    expect(tokens("cached_input")).toBe(2 * USAGE.cached);
    expect(tokens("output")).toBe(2 * USAGE.completion);
    expect(total(s, "cockpit_tokens_total", { model: "local-embedding", kind: "input" })).toBeGreaterThan(0);
    expect(total(s, "cockpit_tokens_total", { model: "local-mini", kind: "output" })).toBeGreaterThan(0);

    const entries = await db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.companyId, companyId), lt(ledgerEntries.amountMicro, 0)));
    const want = { model: 0, tool: 0, embedding: 0, usage_event: 0 };
    for (const e of entries) {
      const micro = -e.amountMicro;
      const meta = e.metadata as { tool_cpu_ms?: number };
      if (e.kind === "usage") want[e.source === "embeddings" ? "embedding" : "usage_event"] += micro;
      else {
        const tool = Math.round(((meta.tool_cpu_ms ?? 0) / 1000) * TOOL_CPU_OT_PER_S * 1e6);
        want.tool += tool;
        want.model += micro - tool;
      }
    }
    expect(want.tool).toBeGreaterThan(0);
    for (const kind of ["model", "tool", "embedding", "usage_event"] as const)
      expect(total(s, "cockpit_billed_ot_total", { kind }), kind).toBeCloseTo(want[kind] / 1e6, 6);
  });

  it("reports job queues, the sandbox pool, the database breaker, Redis and Node's process metrics", () => {
    const queues = samples(s, "cockpit_job_queue_depth", { state: "waiting" }).map((m) => m.labels.queue);
    expect(queues).toEqual(expect.arrayContaining(["knowledge-index", "webhook-event"]));
    expect(samples(s, "cockpit_job_queue_oldest_age_seconds").length).toBe(queues.length);
    expect(total(s, "cockpit_sandbox_processes")).toBeGreaterThanOrEqual(1);
    expect(total(s, "cockpit_sandbox_waiting_calls")).toBe(0);
    // Creating the tool checks its code in the sandbox too: two calls.
    expect(total(s, "cockpit_sandbox_wait_seconds", { outcome: "acquired" })).toBe(2);
    expect(total(s, "cockpit_database_breaker_state", { state: "up" })).toBe(1);
    expect(total(s, "cockpit_database_breaker_state", { state: "down" })).toBe(0);
    expect(total(s, "cockpit_redis_state", { state: "up" })).toBe(1);
    expect(samples(s, "cockpit_nodejs_eventloop_lag_seconds")).toHaveLength(1);
    expect(total(s, "cockpit_nodejs_eventloop_lag_p99_seconds")).toBeGreaterThan(0);
    expect(total(s, "cockpit_nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    expect(total(s, "cockpit_nodejs_gc_duration_seconds")).toBeGreaterThan(0);
    expect(total(s, "cockpit_process_cpu_seconds_total")).toBeGreaterThan(0);
    for (const f of s.keys()) expect(f.startsWith("cockpit_"), f).toBe(true);
  });

  it("has no id among its label values, and a hostile client's model names make no series", () => {
    const values = labelValues(s);
    expect(values.filter((v) => ID_LIKE.test(v))).toEqual([]);
    for (const id of ids) expect(values.some((v) => v.includes(id))).toBe(false);
    expect(values.some((v) => v.includes("hostile"))).toBe(false);
    expect(values.some((v) => v.includes("/nowhere"))).toBe(false);
    const models = new Set(
      ["cockpit_upstream_requests_total", "cockpit_tokens_total"].flatMap((f) =>
        samples(s, f).map((m) => m.labels.model),
      ),
    );
    expect([...models].sort()).toEqual(expect.arrayContaining(["gpt-4o-mini", "local-embedding"]));
    expect(models.size).toBeLessThanOrEqual(4);
  });

  it("is text format a strict parser reads, and which it would refuse if a series came twice", async () => {
    const text = await (await fetch(`${metricsUrl(metricsEnv.METRICS_PORT!)}/metrics`)).text();
    expect(parsePrometheusText(text).size).toBeGreaterThan(20);
    const line = text.split("\n").find((l) => l.startsWith("cockpit_http_requests_total{"))!;
    expect(() => parsePrometheusText(`${text}${line}\n`)).toThrow(/series given twice/);
    const bucket = text.split("\n").find((l) => l.startsWith("cockpit_http_request_duration_seconds_bucket{"))!;
    expect(() => parsePrometheusText(text.replace(bucket, bucket.replace(/ \d+$/, " 1000000")))).toThrow(/cumulative/);
  });

  it("counts a client that leaves: 499 before any answer, and its upstream attempt cancelled", async () => {
    const { key } = await gw.tenant();
    const base = metricsUrl(metricsEnv.METRICS_PORT!);
    const cancelled = { provider: "openai", model: "gpt-4o-mini", outcome: "cancelled" };
    const left = { route: "/v1/chat/completions", method: "POST", status: "499" };
    const before = await scrape(base);
    const leave = async (body: Record<string, unknown>, afterMs: number) => {
      const controller = new AbortController();
      const res = fetch(`${gw.server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], ...body }),
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(), afterMs);
      await res.then((r) => r.text()).catch(() => undefined);
    };
    // Gone while the upstream has not answered: no status was ever sent.
    gw.fake.queue.push({ kind: "delay", ms: 3_000 });
    await leave({}, 500);
    // Gone in the middle of a stream: answered 200, the upstream stream stopped.
    gw.fake.queue.push({ kind: "slow-stream", chunks: 50, intervalMs: 100 });
    await leave({ stream: true }, 800);
    const delta = (x: Scrape, family: string, labels: Record<string, string>) =>
      total(x, family, labels) - total(before, family, labels);
    const after = await scrapeUntil(
      base,
      (x) =>
        delta(x, "cockpit_upstream_requests_total", cancelled) >= 2 &&
        delta(x, "cockpit_http_requests_total", left) >= 1,
    );
    expect(delta(after, "cockpit_http_requests_total", left)).toBe(1);
    expect(delta(after, "cockpit_upstream_requests_total", cancelled)).toBe(2);
  });

  it("listens on METRICS_PORT beside the server's port; anything but GET /metrics is a 404", async () => {
    expect(listeningPorts(gw.server.pid).sort()).toEqual([gw.server.port, Number(metricsEnv.METRICS_PORT)].sort());
    expect((await fetch(`${metricsUrl(metricsEnv.METRICS_PORT!)}/`)).status).toBe(404);
    expect((await fetch(`${metricsUrl(metricsEnv.METRICS_PORT!)}/metrics`, { method: "POST" })).status).toBe(404);
  });
});

describe("the jobs thread's work", () => {
  it("is in the server's scrape: a webhook's run, served on the jobs thread, counted and billed", async () => {
    const company = await makeCompany(db, { creditsOt: 1000 });
    const { url: trigger } = await makeWebhookAgent(db, { companyId: company.id });
    const base = metricsUrl(metricsEnv.METRICS_PORT!);
    const openaiOk = { provider: "openai", model: "gpt-4o-mini", outcome: "ok" };
    const before = await scrape(base);
    const calls = gw.fake.requests.length;

    const res = await fetch(`${gw.server.url}${trigger}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ event_topic: "orders.created", payload: { n: 1 } }),
    });
    expect(res.status).toBe(202);
    const eventId = ((await res.json()) as { id: string }).id;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const [done] = await db
        .select({ status: runs.status })
        .from(webhookEventRuns)
        .innerJoin(runs, eq(runs.id, webhookEventRuns.runId))
        .where(eq(webhookEventRuns.eventId, eventId));
      if (done && done.status !== "in_progress" && done.status !== "queued") break;
      if (Date.now() > deadline) throw new Error("the webhook's run did not end");
      await new Promise((r) => setTimeout(r, 100));
    }
    const charged = async () =>
      (
        await db
          .select()
          .from(ledgerEntries)
          .where(and(eq(ledgerEntries.companyId, company.id), lt(ledgerEntries.amountMicro, 0)))
      ).reduce((n, e) => n - e.amountMicro, 0);
    const upstreamCalls = gw.fake.requests.length - calls;
    expect(upstreamCalls).toBeGreaterThan(0);
    const after = await scrapeUntil(
      base,
      (x) =>
        total(x, "cockpit_upstream_requests_total", openaiOk) -
          total(before, "cockpit_upstream_requests_total", openaiOk) >=
        upstreamCalls,
    );
    expect(
      total(after, "cockpit_upstream_requests_total", openaiOk) -
        total(before, "cockpit_upstream_requests_total", openaiOk),
    ).toBe(upstreamCalls);
    const billed = (x: Scrape) => total(x, "cockpit_billed_ot_total", { kind: "model" });
    expect(billed(after) - billed(before)).toBeCloseTo((await charged()) / 1e6, 6);
  });
});

describe("METRICS_PORT under WEB_CONCURRENCY=2 and set to 0", () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it("the cluster primary reports every worker's requests, summed", async () => {
    const port = await freePort();
    const cluster = (server = await startNextServer({ ...gw.env, WEB_CONCURRENCY: "2", METRICS_PORT: String(port) }));
    const co = await makeCompany(db);
    const { secret } = await makeKey(db, { companyId: co.id, rateLimitPerMinute: 10_000 });
    const n = 40;
    // A new connection each, so the primary's round robin spreads them over both workers.
    const statuses: number[] = [];
    for (let i = 0; i < n; i += 4) {
      const batch = Array.from({ length: 4 }, () =>
        fetch(`${cluster.url}/v1/me`, { headers: { authorization: `Bearer ${secret}`, connection: "close" } }).then(
          async (r) => (await r.text(), r.status),
        ),
      );
      statuses.push(...(await Promise.all(batch)));
    }
    expect(statuses).toEqual(Array(n).fill(200));
    expect(cluster.output().match(/ready on http/g)?.length).toBe(2);
    const s = await scrapeUntil(
      metricsUrl(port),
      (x) => total(x, "cockpit_http_requests_total", { route: "/v1/me" }) >= n,
    );
    expect(total(s, "cockpit_http_requests_total", { route: "/v1/me", method: "GET", status: "200" })).toBe(n);
    expect(total(s, "cockpit_http_request_duration_seconds", { route: "/v1/me" })).toBe(n);
    // Both workers' breakers, and one reading of the shared queue tables (not one per worker).
    expect(total(s, "cockpit_database_breaker_state", { state: "up" })).toBe(2);
    expect(samples(s, "cockpit_job_queue_depth", { state: "waiting" }).length).toBeGreaterThan(0);
    expect(total(s, "cockpit_nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    // Only the primary listens for scrapes.
    expect(listeningPorts(cluster.pid)).toContain(port);
  });

  it("METRICS_PORT=0: no listener but the server's own, and nothing said about metrics", async () => {
    const off = (server = await startNextServer({ ...gw.env, METRICS_PORT: "0" }));
    const me = await fetch(`${off.url}/api/health`);
    expect(me.status).toBe(200);
    expect(listeningPorts(off.pid)).toEqual([off.port]);
    expect(off.output()).not.toContain("metrics on");
  });

  it("a METRICS_PORT another process holds: the server starts without metrics and says so", async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    const held = (holder.address() as AddressInfo).port;
    try {
      const second = (server = await startNextServer({ ...gw.env, METRICS_PORT: String(held) }));
      expect((await fetch(`${second.url}/api/health`)).status).toBe(200);
      expect(listeningPorts(second.pid)).toEqual([second.port]);
      expect(second.output()).toContain(`METRICS_PORT ${held}`);
      expect(second.output()).toContain("metrics are off in this process");
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});

describe("the separate worker's /metrics", () => {
  let worker: ChildProcess | undefined;
  let output = "";
  afterAll(async () => {
    await stopBoss();
    if (worker && worker.exitCode === null) {
      const exited = new Promise((r) => worker!.once("exit", r));
      worker.kill("SIGTERM");
      await exited;
    }
  });

  it("serves its job queues' depth and oldest age on its own METRICS_PORT", async () => {
    const port = await freePort();
    worker = spawn(process.execPath, ["--import", "tsx", "--conditions=react-server", "scripts/worker.ts"], {
      env: { ...process.env, ...gw.env, NODE_ENV: "production", METRICS_PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    worker.stdout!.on("data", (c: Buffer) => (output += c.toString()));
    worker.stderr!.on("data", (c: Buffer) => (output += c.toString()));
    const deadline = Date.now() + 60_000;
    while (
      !(await fetch(`${metricsUrl(port)}/metrics`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (worker.exitCode !== null || Date.now() > deadline) throw new Error(`worker did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // A job due in an hour: it waits in the queue whatever the workers do.
    const boss = await getBoss();
    await boss.createQueue("knowledge-index");
    const jobId = await boss.send("knowledge-index", { probe: true }, { startAfter: 3600 });
    expect(jobId).toBeTruthy();
    try {
      const s = await scrapeUntil(
        metricsUrl(port),
        (x) => total(x, "cockpit_job_queue_depth", { queue: "knowledge-index", state: "waiting" }) >= 1,
      );
      expect(
        total(s, "cockpit_job_queue_depth", { queue: "knowledge-index", state: "waiting" }),
      ).toBeGreaterThanOrEqual(1);
      expect(total(s, "cockpit_job_queue_oldest_age_seconds", { queue: "knowledge-index" })).toBeGreaterThanOrEqual(0);
      expect(samples(s, "cockpit_job_queue_depth", { queue: "webhook-event" }).length).toBe(2);
      expect(total(s, "cockpit_database_breaker_state", { state: "up" })).toBe(1);
      expect(total(s, "cockpit_process_cpu_seconds_total")).toBeGreaterThan(0);
      expect(samples(s, "cockpit_http_requests_total")).toEqual([]);
    } finally {
      await boss.deleteJob("knowledge-index", jobId!);
    }
  });
});
