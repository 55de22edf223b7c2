import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { companies, reservations, webhookEvents } from "@/db/schema";
import { makeCompany, makeWebhookAgent } from "../support/factories";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startNextServer, type RunningServer } from "../support/next-server";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";

/**
 * `npm run worker` rides out PostgreSQL outages: its database goes through a TCP proxy the test
 * cuts several times while the worker is in the middle of webhook events' jobs (pg-boss's fetch,
 * complete and fail calls, the heartbeat and the reconcilers all lose their connections). The
 * process stays up, and once the database is back every accepted event ends `done`. The server
 * that accepts the events serves no queue itself (WEBHOOK_WORKER_CONCURRENCY=0). Stopped with
 * SIGTERM, the worker gives back the credit it leased for its runs before it exits.
 */
const jobEnv = {
  WEBHOOK_JOB_EXPIRE_S: "4",
  WEBHOOK_JOB_RETRIES: "8",
  WEBHOOK_JOB_RETRY_DELAY_S: "1",
  JOBS_MAINTENANCE_S: "1",
  JOBS_IDLE_CHECK_S: "1",
  JOBS_POLL_S: "1",
  LOG_LEVEL: "warn",
  WEBHOOK_RATE_LIMIT_PER_MINUTE: "100000",
};
const EVENTS = 40;
const CUTS = 5;

let upstream: FakeUpstream;
let server: RunningServer | undefined;
let proxy: TcpProxy | undefined;
const workers: ChildProcess[] = [];
let workerLog = "";

beforeAll(async () => {
  // Slow model calls, so each cut finds jobs in flight.
  upstream = await startFakeUpstream({ behaviourFor: () => ({ kind: "delay", ms: 300 }) });
});

afterAll(async () => {
  for (const w of workers) await stopChild(w, "SIGKILL");
  await server?.kill();
  await proxy?.close();
  await upstream?.close();
});

function baseEnv(): Record<string, string> {
  return {
    ...jobEnv,
    AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
    OPENAI_BASE_URL: upstream.openaiBase,
    OPENAI_API_KEY: "sk-up",
    UPSTREAM_RETRIES: "0",
    REDIS_URL: "",
  };
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once("exit", r));
  child.kill(signal);
  await gone;
}

function startWorker(env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "--conditions=react-server", "scripts/worker.ts"], {
    env: { ...process.env, ...env, NODE_ENV: "production" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    workerLog = (workerLog + chunk.toString("utf8")).slice(-32_768);
  });
  workers.push(child);
  return child;
}

async function busTenant() {
  const company = await makeCompany(db, { creditsOt: 1_000_000 });
  return { companyId: company.id, ...(await makeWebhookAgent(db, { companyId: company.id })) };
}

async function statusCounts(companyId: string): Promise<Record<string, number>> {
  const rows = await db
    .select({ status: webhookEvents.status, n: sql<number>`count(*)::int` })
    .from(webhookEvents)
    .where(eq(webhookEvents.companyId, companyId))
    .groupBy(webhookEvents.status);
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const alive = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

describe("npm run worker and a PostgreSQL outage", () => {
  it("cut several times mid-job: the worker stays up and every accepted event ends done", async () => {
    const tenant = await busTenant();
    server = await startNextServer({ ...baseEnv(), WEBHOOK_WORKER_CONCURRENCY: "0" });
    const target = new URL(process.env.DATABASE_URL!);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    for (let n = 0; n < EVENTS; n++) {
      const res = await fetch(`${server.url}${tenant.url}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ event_topic: "orders.created", payload: { n } }),
      });
      expect(res.status).toBe(202);
    }

    const w = startWorker({
      ...baseEnv(),
      DATABASE_URL: proxy.url(process.env.DATABASE_URL!),
      WEBHOOK_WORKER_CONCURRENCY: "4",
    });
    const started = Date.now() + 60_000;
    while (((await statusCounts(tenant.companyId)).done ?? 0) < 2) {
      if (Date.now() > started) throw new Error(`the worker did not get going: ${workerLog}`);
      await sleep(100);
    }
    // Cuts of both kinds: connections reset and refused for a while (a restart), and reset alone (a failover).
    for (let i = 0; i < CUTS; i++) {
      if (i % 2 === 0) {
        proxy.disable();
        await sleep(1_500);
        proxy.enable();
      } else {
        proxy.reset();
      }
      await sleep(1_000);
      expect(alive(w), `cut ${i + 1}: the worker exited (${w.exitCode ?? w.signalCode}): ${workerLog}`).toBe(true);
    }

    const deadline = Date.now() + 120_000;
    let counts = await statusCounts(tenant.companyId);
    while ((counts.done ?? 0) < EVENTS && Date.now() < deadline) {
      expect(alive(w), `the worker exited (${w.exitCode ?? w.signalCode}): ${workerLog}`).toBe(true);
      await sleep(500);
      counts = await statusCounts(tenant.companyId);
    }
    expect(counts).toEqual({ done: EVENTS });
    expect(alive(w)).toBe(true);
    const lines = (text: string) => workerLog.split(text).length - 1;
    await stopChild(w, "SIGTERM");
    await server.kill();
    console.log(
      `worker rode out ${CUTS} cuts: ${lines("a job queue call failed")} queue calls lost, ${lines("wrote to a closed connection")} driver writes to a closed connection`,
    );
  }, 240_000);

  it("SIGTERM right after its events: the worker releases its credit lease before it exits", async () => {
    const tenant = await busTenant();
    const accepting = await startNextServer({ ...baseEnv(), WEBHOOK_WORKER_CONCURRENCY: "0" });
    for (let n = 0; n < 3; n++) {
      const res = await fetch(`${accepting.url}${tenant.url}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ event_topic: "orders.created", payload: { n } }),
      });
      expect(res.status).toBe(202);
    }
    // Gone before the worker stops: no other process releases the worker's lease meanwhile.
    await accepting.kill();
    const w = startWorker({ ...baseEnv(), WEBHOOK_WORKER_CONCURRENCY: "4" });
    const deadline = Date.now() + 60_000;
    while (((await statusCounts(tenant.companyId)).done ?? 0) < 3) {
      if (Date.now() > deadline || !alive(w)) throw new Error(`events not done: ${workerLog}`);
      await sleep(50);
    }
    // The lease idles out 2 s after its last call: stopped well within that.
    await stopChild(w, "SIGTERM");
    expect(
      await db
        .select()
        .from(reservations)
        .where(and(eq(reservations.companyId, tenant.companyId), eq(reservations.status, "held"))),
    ).toEqual([]);
    const [row] = await db.select().from(companies).where(eq(companies.id, tenant.companyId));
    expect(row!.reservedMicro).toBe(0);
    expect(row!.balanceMicro).toBeLessThan(1_000_000 * 1_000_000);
  }, 120_000);
});
