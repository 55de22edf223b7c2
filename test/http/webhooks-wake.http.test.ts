import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { runs, webhookEventRuns, webhookEvents } from "@/db/schema";
import { createAgent } from "@/lib/agents";
import { createProfile, CreateProfileInput } from "@/lib/profiles";
import { createWebhook, triggerPath } from "@/lib/webhooks";
import { makeCompany } from "../support/factories";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * A split deployment: the server accepts events and works on none (WEBHOOK_WORKER_CONCURRENCY=0);
 * a separate `npm run worker` processes them. Its idle workers poll only every 60 s here, so an
 * event reaches them at once only if the accepting process wakes them (NOTIFY after its commit).
 */
let upstream: FakeUpstream;
let server: RunningServer | undefined;
let worker: ChildProcess | undefined;

beforeAll(async () => {
  upstream = await startFakeUpstream();
});

afterAll(async () => {
  await server?.kill();
  if (worker && worker.exitCode === null) {
    const gone = new Promise((r) => worker!.once("exit", r));
    worker.kill("SIGKILL");
    await gone;
  }
  await upstream?.close();
});

async function runStartLag(eventId: string, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await db
      .select({ accepted: webhookEvents.createdAt, started: runs.createdAt })
      .from(webhookEvents)
      .innerJoin(webhookEventRuns, eq(webhookEventRuns.eventId, webhookEvents.id))
      .innerJoin(runs, eq(runs.id, webhookEventRuns.runId))
      .where(eq(webhookEvents.id, eventId));
    if (row) return row.started.getTime() - row.accepted.getTime();
    if (Date.now() > deadline) throw new Error(`event ${eventId} woke no run within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("job wake-ups across processes", () => {
  it("an event accepted by a server that works on none starts at once in a separate worker process, not at its next poll", async () => {
    const env = {
      AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("hex"),
      OPENAI_BASE_URL: upstream.openaiBase,
      OPENAI_API_KEY: "sk-up",
      REDIS_URL: "",
      LOG_LEVEL: "error",
      JOBS_IDLE_CHECK_S: "1",
      JOBS_POLL_S: "60",
    };
    const company = await makeCompany(db, { creditsOt: 1_000_000 });
    const profile = await createProfile(db, {
      companyId: company.id,
      input: CreateProfileInput.parse({ name: "Conductor", model_slug: "gpt-4o-mini" }),
    });
    const agent = await createAgent(db, {
      companyId: company.id,
      input: { name: "Orders", conductor_profile_id: profile.id, topics: ["orders.*"] },
    });
    const { secret } = await createWebhook(db, { companyId: company.id, agentId: agent.id });
    const url = triggerPath(company.id, secret);

    server = await startNextServer({ ...env, WEBHOOK_WORKER_CONCURRENCY: "0" });
    worker = spawn(process.execPath, ["--import", "tsx", "--conditions=react-server", "scripts/worker.ts"], {
      env: { ...process.env, ...env, NODE_ENV: "production", WEBHOOK_WORKER_CONCURRENCY: "1" },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const trigger = async (n: number) => {
      const res = await fetch(`${server!.url}${url}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ event_topic: "orders.created", payload: { n } }),
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as { id: string }).id;
    };

    // The first event starts the worker's job workers (its idle check sees work); after it they
    // ask once more, find nothing, and sleep for JOBS_POLL_S.
    const first = await trigger(0);
    await runStartLag(first, 60_000);
    await new Promise((r) => setTimeout(r, 1_500));

    // No worker in the accepting server: only the separate worker can have started these runs.
    const lags: number[] = [];
    for (let n = 1; n <= 3; n++) {
      lags.push(await runStartLag(await trigger(n), 10_000));
      await new Promise((r) => setTimeout(r, 500));
    }
    console.log(`202 → run start in the other process: ${lags.join(", ")} ms`);
    expect(Math.max(...lags)).toBeLessThan(2_000);
  }, 120_000);
});
