import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { runs, webhookEventRuns, webhookEvents } from "@/db/schema";
import { makeCompany, makeWebhookAgent } from "../support/factories";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startNextServer, type RunningServer } from "../support/next-server";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";

/**
 * Durability: events answered 202 are processed exactly once across a SIGKILL of the process
 * working on them, and a PostgreSQL cut during a burst answers 503 (never a 202 for an unstored
 * event). Jobs expire quickly here so a killed worker's jobs are retried soon.
 */
const jobEnv = {
  WEBHOOK_JOB_EXPIRE_S: "4",
  WEBHOOK_JOB_RETRIES: "8",
  WEBHOOK_JOB_RETRY_DELAY_S: "1",
  JOBS_MAINTENANCE_S: "1",
  JOBS_IDLE_CHECK_S: "1",
  LOG_LEVEL: "error",
  WEBHOOK_RATE_LIMIT_PER_MINUTE: "100000",
};

let upstream: FakeUpstream;
let baseEnv: Record<string, string>;
const started: { server?: RunningServer; worker?: ChildProcess; proxy?: TcpProxy } = {};

beforeAll(async () => {
  // Slow model calls, so the kill finds runs in flight.
  upstream = await startFakeUpstream({ behaviourFor: () => ({ kind: "delay", ms: 150 }) });
  baseEnv = {
    ...jobEnv,
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    OPENAI_BASE_URL: upstream.openaiBase,
    OPENAI_API_KEY: "sk-up",
    UPSTREAM_RETRIES: "0",
    REDIS_URL: "",
  };
});

afterAll(async () => {
  await started.server?.kill();
  const w = started.worker;
  if (w && w.exitCode === null) {
    const gone = new Promise((r) => w.once("exit", r));
    w.kill("SIGKILL");
    await gone;
  }
  await started.proxy?.close();
  await upstream?.close();
});

function startWorker(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "--conditions=react-server", "scripts/worker.ts"], {
    env: { ...process.env, ...env, NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function busTenant() {
  const company = await makeCompany(db, { creditsOt: 1_000_000 });
  return { companyId: company.id, ...(await makeWebhookAgent(db, { companyId: company.id })) };
}

async function post(
  base: string,
  url: string,
  n: number,
): Promise<{ status: number; id?: string; retryAfter: string | null; code?: string; at: number }> {
  const r = await postOnce(base, url, n);
  return { ...r, at: Date.now() };
}

async function postOnce(
  base: string,
  url: string,
  n: number,
): Promise<{ status: number; id?: string; retryAfter: string | null; code?: string }> {
  try {
    const res = await fetch(`${base}${url}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ event_topic: "orders.created", payload: { n } }),
      signal: AbortSignal.timeout(15_000),
    });
    const json = (await res.json().catch(() => null)) as { id?: string; error?: { code?: string } } | null;
    return { status: res.status, id: json?.id, retryAfter: res.headers.get("retry-after"), code: json?.error?.code };
  } catch {
    return { status: 0, retryAfter: null };
  }
}

async function statusCounts(companyId: string): Promise<Record<string, number>> {
  const rows = await db
    .select({ status: webhookEvents.status, n: sql<number>`count(*)::int` })
    .from(webhookEvents)
    .where(eq(webhookEvents.companyId, companyId))
    .groupBy(webhookEvents.status);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

async function untilAllFinal(companyId: string, total: number, timeoutMs: number): Promise<Record<string, number>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await statusCounts(companyId);
    const final = (counts.done ?? 0) + (counts.failed ?? 0) + (counts.dead ?? 0);
    if (final >= total) return counts;
    if (Date.now() > deadline) throw new Error(`not all events final: ${JSON.stringify(counts)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Every event woke its agent once: one completed run per event (runs a crash interrupted are failed, and were replaced). */
async function checkExactlyOnce(companyId: string, eventIds: string[]) {
  const claims = await db.select().from(webhookEventRuns).where(inArray(webhookEventRuns.eventId, eventIds));
  expect(claims).toHaveLength(eventIds.length);
  expect(claims.every((c) => c.status === "completed")).toBe(true);
  const completed = await db
    .select({ threadId: runs.threadId, n: sql<number>`count(*)::int` })
    .from(runs)
    .where(and(eq(runs.companyId, companyId), eq(runs.status, "completed")))
    .groupBy(runs.threadId);
  expect(completed).toHaveLength(eventIds.length);
  expect(completed.every((r) => r.n === 1)).toBe(true);
  const all = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(runs)
    .where(eq(runs.companyId, companyId));
  return { runs: all[0]!.n, claims: claims.length };
}

describe("webhook events survive crashes and outages", () => {
  it("SIGKILL the server working on 200 accepted events; the standalone worker processes each exactly once", async () => {
    const tenant = await busTenant();
    started.server = await startNextServer({ ...baseEnv, WEBHOOK_WORKER_CONCURRENCY: "2" });
    const answers = [];
    for (let i = 0; i < 200; i += 20) {
      answers.push(
        ...(await Promise.all(Array.from({ length: 20 }, (_, j) => post(started.server!.url, tenant.url, i + j)))),
      );
    }
    expect(answers.map((a) => a.status)).toEqual(Array(200).fill(202));
    const ids = answers.map((a) => a.id!);
    // Let it get going, then kill it mid-work.
    const deadline = Date.now() + 20_000;
    while (((await statusCounts(tenant.companyId)).done ?? 0) < 5 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    await started.server.kill();
    started.server = undefined;
    const atKill = await statusCounts(tenant.companyId);
    expect(atKill.done ?? 0).toBeLessThan(200);

    started.worker = startWorker({ ...baseEnv, WEBHOOK_WORKER_CONCURRENCY: "4" });
    const counts = await untilAllFinal(tenant.companyId, 200, 240_000);
    expect(counts).toEqual({ done: 200 });
    const { runs: runCount } = await checkExactlyOnce(tenant.companyId, ids);
    console.log(
      `SIGKILL: at the kill ${JSON.stringify(atKill)}; after: ${JSON.stringify(counts)}, ${runCount} runs for 200 events`,
    );
    const w = started.worker;
    const gone = new Promise((r) => w.once("exit", r));
    w.kill("SIGTERM");
    await gone;
    started.worker = undefined;
  }, 300_000);

  it("PostgreSQL cut during a burst: 202 or 503 with Retry-After, and every 202'd event is processed after it returns", async () => {
    const tenant = await busTenant();
    const target = new URL(process.env.DATABASE_URL!);
    started.proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const proxy = started.proxy;
    started.server = await startNextServer({ ...baseEnv, DATABASE_URL: proxy.url(process.env.DATABASE_URL!) });
    const base = started.server.url;
    const answers: Awaited<ReturnType<typeof post>>[] = [];
    let n = 0;
    let stop = false;
    const clients = Array.from({ length: 8 }, async () => {
      while (!stop) {
        answers.push(await post(base, tenant.url, n++));
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    await new Promise((r) => setTimeout(r, 2_000));
    const cutStart = Date.now();
    proxy.disable();
    await new Promise((r) => setTimeout(r, 4_000));
    proxy.enable();
    const cutEnd = Date.now();
    await new Promise((r) => setTimeout(r, 6_000));
    stop = true;
    await Promise.all(clients);
    const statuses = answers.reduce<Record<number, number>>(
      (acc, a) => ((acc[a.status] = (acc[a.status] ?? 0) + 1), acc),
      {},
    );
    const phase = (a: { at: number }) => (a.at < cutStart ? "before" : a.at <= cutEnd ? "during" : "after");
    const byPhase = answers.reduce<Record<string, number>>((acc, a) => {
      const k = `${phase(a)} ${a.status} ${a.code ?? ""}`;
      acc[k] = (acc[k] ?? 0) + 1;
      return acc;
    }, {});
    const firstAfter = answers
      .filter((a) => a.status === 202 && a.at > cutEnd)
      .map((a) => a.at - cutEnd)
      .sort((x, y) => x - y)[0];
    console.log(
      "db cut burst:",
      JSON.stringify(statuses),
      JSON.stringify(byPhase),
      `first 202 ${firstAfter} ms after the cut`,
    );
    expect(
      Object.keys(statuses)
        .map(Number)
        .every((s) => s === 202 || s === 503),
    ).toBe(true);
    expect(statuses[503] ?? 0).toBeGreaterThan(0);
    for (const a of answers.filter((x) => x.status === 503)) expect(Number(a.retryAfter)).toBeGreaterThan(0);
    const accepted = answers.filter((a) => a.status === 202).map((a) => a.id!);
    // The trigger accepts again once PostgreSQL is back.
    expect(firstAfter).toBeDefined();
    // Every 202 was stored; a 503 may still have stored its event (its commit's answer lost), never the reverse.
    const stored = await db
      .select({ id: webhookEvents.id })
      .from(webhookEvents)
      .where(eq(webhookEvents.companyId, tenant.companyId));
    const storedIds = new Set(stored.map((s) => s.id));
    expect(accepted.every((id) => storedIds.has(id))).toBe(true);
    const counts = await untilAllFinal(tenant.companyId, stored.length, 180_000);
    expect(counts).toEqual({ done: stored.length });
    await checkExactlyOnce(
      tenant.companyId,
      stored.map((s) => s.id),
    );
  }, 300_000);
});
