import fs from "node:fs";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { webhookEventRuns, webhookEvents, webhooks } from "@/db/schema";
import { createAgent } from "@/lib/agents";
import { createProfile, CreateProfileInput } from "@/lib/profiles";
import { createWebhook, setWebhookSignature, triggerPath } from "@/lib/webhooks";
import { signPayload } from "@/lib/webhooks/signature";
import { useGateway } from "../support/gateway";

const FAIL_MARK = "always-fail-upstream";

const gw = useGateway({
  env: { WEBHOOK_JOB_RETRIES: "2", WEBHOOK_JOB_RETRY_DELAY_S: "1", JOBS_IDLE_CHECK_S: "1" },
  // Every model call whose prompt carries the mark fails upstream (500), however often it is retried.
  fake: {
    behaviourFor: (body) =>
      JSON.stringify(body).includes(FAIL_MARK) ? { kind: "error", status: 500, message: "upstream down" } : undefined,
  },
});

async function agentOf(companyId: string, opts: { model?: string; topics?: string[]; name?: string } = {}) {
  const profile = await createProfile(db, {
    companyId,
    input: CreateProfileInput.parse({ name: "Conductor", model_slug: opts.model ?? "local-mini" }),
  });
  return createAgent(db, {
    companyId,
    input: { name: opts.name ?? "Agent", conductor_profile_id: profile.id, topics: opts.topics ?? [] },
  });
}

async function trigger(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${gw.server.url}${url}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null, headers: res.headers };
}

async function eventOf(id: string) {
  const [event] = await db.select().from(webhookEvents).where(eq(webhookEvents.id, id));
  return event!;
}

/** Waits for the event to reach a final status (the worker runs inside the server). */
async function settled(id: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const event = await eventOf(id);
    if (["done", "failed", "dead"].includes(event.status)) return event;
    if (Date.now() > deadline) throw new Error(`event ${id} still ${event.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const webhookThreads = async (key: string) =>
  (await gw.call(key, "GET", "/v1/threads?source=webhook")).json.data as any[];

describe("POST /v1/public/triggers/{company_id}/{secret}", () => {
  it("a bound webhook wakes its agent: 202, a webhook thread with the event as a user message, a completed run", async () => {
    const { companyId, key } = await gw.tenant();
    const agent = await agentOf(companyId);
    const { webhook, secret } = await createWebhook(db, { companyId, agentId: agent.id });
    const res = await trigger(triggerPath(companyId, secret), {
      event_topic: "orders.created",
      payload: { order: 42 },
    });
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ id: expect.stringMatching(/^evt_/), status: "accepted" });
    expect(res.headers.get("x-request-id")).toBeTruthy();

    const event = await settled(res.json.id);
    expect(event).toMatchObject({
      status: "done",
      error: null,
      topic: "orders.created",
      payload: { order: 42 },
      webhookId: webhook.id,
    });
    const threads = await webhookThreads(key);
    expect(threads).toHaveLength(1);
    expect(threads[0]).toMatchObject({
      source: "webhook",
      metadata: { event_id: event.id, webhook_id: webhook.id, topic: "orders.created" },
    });
    const list = (await gw.call(key, "GET", `/v1/threads/${threads[0].id}/messages?order=asc`)).json.data;
    expect(list.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
    // The stored user message is the event as JSON text (the API's message list reads a jsonb string
    // that looks like JSON back as the object: drizzle's jsonb decoding parses postgres.js's string again).
    const [stored] = await db.execute<{ type: string; text: string }>(
      sql`SELECT jsonb_typeof(content) AS type, content #>> '{}' AS text FROM messages WHERE id = ${list[0].id}`,
    );
    expect(stored).toEqual({
      type: "string",
      text: JSON.stringify({ event_topic: "orders.created", payload: { order: 42 } }),
    });
    const runs = (await gw.call(key, "GET", `/v1/threads/${threads[0].id}/runs`)).json.data;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: "completed", model: "local-mini" });
    const claims = await db.select().from(webhookEventRuns).where(eq(webhookEventRuns.eventId, event.id));
    expect(claims).toEqual([
      expect.objectContaining({ agentId: agent.id, runId: runs[0].id, threadId: threads[0].id, status: "completed" }),
    ]);
  });

  it("events are processed on the server's jobs thread (nice 10), which holds credit as the server process, not as another owner", async () => {
    const { companyId, key } = await gw.tenant();
    const agent = await agentOf(companyId);
    const { secret } = await createWebhook(db, { companyId, agentId: agent.id });
    const res = await trigger(triggerPath(companyId, secret), { event_topic: "orders.created", payload: {} });
    expect((await settled(res.json.id)).status).toBe("done");
    // Linux keeps a nice value per thread: the server process has one thread at 10, the jobs thread.
    const nices = fs.readdirSync(`/proc/${gw.server.pid}/task`).map((tid) => {
      const stat = fs.readFileSync(`/proc/${gw.server.pid}/task/${tid}/stat`, "utf8");
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
    });
    expect(nices.filter((n) => n === 10)).toHaveLength(1);
    expect(nices[0]).toBe(0);
    // A run through the API (the main thread) takes its own lease: both leases name one owner, the
    // server process, so neither thread's reconciler ever takes the other's for a dead process's.
    const thread = await gw.thread(key, [{ role: "user", content: "hi" }]);
    expect((await gw.call(key, "POST", `/v1/threads/${thread}/runs`, { model: "local-mini" })).status).toBe(200);
    const owners = await db.execute<{ owner: string }>(
      sql`SELECT DISTINCT owner FROM reservations WHERE company_id = ${companyId} AND reference_id = 'lease'`,
    );
    expect(owners).toHaveLength(1);
    expect(owners[0]!.owner).toContain(`/${gw.server.pid}.`);
  });

  it("an unbound webhook publishes to the company bus: only active agents whose patterns match wake; a topic matching nothing wakes nothing", async () => {
    const { companyId, key } = await gw.tenant();
    const orders = await agentOf(companyId, { topics: ["orders.*"], name: "orders" });
    const deep = await agentOf(companyId, { topics: ["orders.>"], name: "deep" });
    await agentOf(companyId, { topics: ["billing.*"], name: "billing" });
    const paused = await agentOf(companyId, { topics: ["orders.*"], name: "paused" });
    await db.execute(`UPDATE agents SET is_active = false WHERE id = '${paused.id}'`);
    const other = await gw.tenant();
    await agentOf(other.companyId, { topics: ["orders.*"] });
    const { secret } = await createWebhook(db, { companyId });

    const res = await trigger(triggerPath(companyId, secret), { event_topic: "orders.created", payload: {} });
    expect(res.status).toBe(202);
    expect((await settled(res.json.id)).status).toBe("done");
    const claims = await db.select().from(webhookEventRuns).where(eq(webhookEventRuns.eventId, res.json.id));
    expect(claims.map((c) => c.agentId).sort()).toEqual([orders.id, deep.id].sort());
    expect(claims.every((c) => c.status === "completed")).toBe(true);
    expect(await webhookThreads(key)).toHaveLength(2);
    expect(await webhookThreads(other.key)).toHaveLength(0);

    const none = await trigger(triggerPath(companyId, secret), { event_topic: "inventory.low", payload: { sku: "x" } });
    expect(none.status).toBe(202);
    expect(await settled(none.json.id)).toMatchObject({ status: "done", error: null });
    expect(await db.select().from(webhookEventRuns).where(eq(webhookEventRuns.eventId, none.json.id))).toHaveLength(0);
    expect(await webhookThreads(key)).toHaveLength(2);
  });

  it("403, one answer for a wrong secret, another company's id with a valid secret and an unknown company", async () => {
    const a = await gw.tenant();
    const b = await gw.tenant();
    const { secret } = await createWebhook(db, { companyId: a.companyId });
    const body = { event_topic: "x.y", payload: {} };
    const answers = await Promise.all([
      trigger(triggerPath(a.companyId, `${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`), body),
      trigger(triggerPath(b.companyId, secret), body),
      trigger(triggerPath("co_doesnotexist", secret), body),
    ]);
    for (const res of answers) {
      expect(res.status).toBe(403);
      expect(res.json).toEqual({
        error: { message: "Invalid webhook URL", type: "permission_error", code: "invalid_webhook", param: null },
      });
    }
    // A paused endpoint is refused the same way.
    await db.update(webhooks).set({ isActive: false }).where(eq(webhooks.companyId, a.companyId));
    expect((await trigger(triggerPath(a.companyId, secret), body)).status).toBe(403);
    const count = await db.select().from(webhookEvents).where(eq(webhookEvents.companyId, a.companyId));
    expect(count).toHaveLength(0);
  });

  it("400 naming the field, 413 above the body cap; nothing stored", async () => {
    const { companyId } = await gw.tenant();
    const { secret } = await createWebhook(db, { companyId });
    const url = triggerPath(companyId, secret);
    const cases: [unknown, string | null][] = [
      [{ payload: {} }, "event_topic"],
      [{ event_topic: "orders..created", payload: {} }, "event_topic"],
      [{ event_topic: "a".repeat(201), payload: {} }, "event_topic"],
      [{ event_topic: 7, payload: {} }, "event_topic"],
      [{ event_topic: "orders.created" }, "payload"],
      [{ event_topic: "orders.created", payload: [1, 2] }, "payload"],
      [{ event_topic: "orders.created", payload: "text" }, "payload"],
      [{ event_topic: "orders.created", payload: {}, agent_id: "x" }, "agent_id"],
    ];
    for (const [body, param] of cases) {
      const res = await trigger(url, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error).toMatchObject({ type: "invalid_request_error", param });
    }
    const malformed = await trigger(url, "{not json");
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.code).toBe("invalid_json");
    const big = await trigger(url, { event_topic: "big.one", payload: { blob: "x".repeat(300 * 1024) } });
    expect(big.status).toBe(413);
    expect(big.json.error.code).toBe("payload_too_large");
    expect(await db.select().from(webhookEvents).where(eq(webhookEvents.companyId, companyId))).toHaveLength(0);
  });

  it("a duplicate (Idempotency-Key or webhook-id) is accepted once: the first event's id, one event, one run, concurrent retries included", async () => {
    const { companyId, key } = await gw.tenant();
    const agent = await agentOf(companyId);
    const { secret } = await createWebhook(db, { companyId, agentId: agent.id });
    const url = triggerPath(companyId, secret);
    const body = { event_topic: "orders.created", payload: { n: 1 } };
    const first = await trigger(url, body, { "idempotency-key": "order-1" });
    expect(first.status).toBe(202);
    const again = await Promise.all(
      Array.from({ length: 6 }, () => trigger(url, body, { "idempotency-key": "order-1" })),
    );
    for (const res of again) expect(res.json).toEqual({ id: first.json.id, status: "accepted" });
    // Concurrent first deliveries of a new key: one event.
    const burst = await Promise.all(Array.from({ length: 6 }, () => trigger(url, body, { "webhook-id": "msg_2" })));
    expect(new Set(burst.map((r) => r.status))).toEqual(new Set([202]));
    expect(new Set(burst.map((r) => r.json.id)).size).toBe(1);
    const events = await db.select().from(webhookEvents).where(eq(webhookEvents.companyId, companyId));
    expect(events).toHaveLength(2);
    await settled(first.json.id);
    await settled(burst[0]!.json.id);
    expect(await webhookThreads(key)).toHaveLength(2);
    // The same key on another endpoint is another event.
    const { secret: other } = await createWebhook(db, { companyId, agentId: agent.id });
    const elsewhere = await trigger(triggerPath(companyId, other), body, { "idempotency-key": "order-1" });
    expect(elsewhere.json.id).not.toBe(first.json.id);
  });

  it("an endpoint requiring Standard Webhooks signatures: unsigned, tampered or stale deliveries 401, a signed one 202 (its webhook-id dedupes)", async () => {
    const { companyId } = await gw.tenant();
    const { webhook, secret } = await createWebhook(db, { companyId });
    const { signingSecret } = await setWebhookSignature(db, { companyId, webhookId: webhook.id, required: true });
    const url = triggerPath(companyId, secret);
    const body = JSON.stringify({ event_topic: "orders.created", payload: { n: 1 } });
    const now = Math.floor(Date.now() / 1000);
    const signed = (id: string, ts: number, b = body) => ({
      "webhook-id": id,
      "webhook-timestamp": String(ts),
      "webhook-signature": signPayload(signingSecret!, id, ts, b),
    });

    const unsigned = await trigger(url, body);
    expect(unsigned.status).toBe(401);
    expect(unsigned.json.error).toMatchObject({ type: "authentication_error", code: "invalid_signature" });
    const tampered = await trigger(url, body.replace("orders", "refunds"), signed("msg_1", now));
    expect(tampered.status).toBe(401);
    const stale = await trigger(url, body, signed("msg_2", now - 600));
    expect(stale.status).toBe(401);
    expect(stale.json.error.message).toMatch(/5 minutes/);
    const ok = await trigger(url, body, signed("msg_3", now));
    expect(ok.status).toBe(202);
    const replayed = await trigger(url, body, signed("msg_3", now));
    expect(replayed.json.id).toBe(ok.json.id);
    expect(await db.select().from(webhookEvents).where(eq(webhookEvents.companyId, companyId))).toHaveLength(1);
    // Turned off: unsigned deliveries are accepted again, once the server's cache hears of the
    // change (a PostgreSQL notification, delivered a moment after the write).
    await setWebhookSignature(db, { companyId, webhookId: webhook.id, required: false });
    await expect.poll(async () => (await trigger(url, body)).status, { timeout: 10_000 }).toBe(202);
  });

  it("rate-limited per endpoint: 429 with Retry-After, and the other endpoints keep accepting", async () => {
    const { companyId } = await gw.tenant();
    const { webhook, secret } = await createWebhook(db, { companyId });
    const { secret: calm } = await createWebhook(db, { companyId });
    await db.update(webhooks).set({ rateLimitPerMinute: 2 }).where(eq(webhooks.id, webhook.id));
    const body = { event_topic: "noise.made", payload: {} };
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push(await trigger(triggerPath(companyId, secret), body));
    expect(statuses.map((r) => r.status)).toEqual([202, 202, 429]);
    expect(Number(statuses[2]!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(statuses[2]!.json.error.type).toBe("rate_limit_error");
    expect((await trigger(triggerPath(companyId, calm), body)).status).toBe(202);
  });

  it("a run failing upstream is retried with backoff, then the event is dead (one thread, one failed run per attempt)", async () => {
    const { companyId, key } = await gw.tenant();
    const agent = await agentOf(companyId, { model: "gpt-4o-mini" });
    const { secret } = await createWebhook(db, { companyId, agentId: agent.id });
    const res = await trigger(triggerPath(companyId, secret), {
      event_topic: "orders.created",
      payload: { note: FAIL_MARK },
    });
    expect(res.status).toBe(202);
    const event = await settled(res.json.id, 60_000);
    expect(event.status).toBe("dead");
    expect(event.attempts).toBe(3);
    expect(event.error).toMatch(/upstream_500/);
    const threads = await webhookThreads(key);
    expect(threads).toHaveLength(1);
    const runs = (await gw.call(key, "GET", `/v1/threads/${threads[0].id}/runs`)).json.data;
    expect(runs).toHaveLength(3);
    expect(runs.every((r: { status: string }) => r.status === "failed")).toBe(true);
  }, 90_000);

  it("402 when the company has no credit: the event is failed with that reason, not retried", async () => {
    const { companyId, key } = await gw.tenant(0);
    const agent = await agentOf(companyId);
    const { secret } = await createWebhook(db, { companyId, agentId: agent.id });
    const res = await trigger(triggerPath(companyId, secret), { event_topic: "orders.created", payload: {} });
    expect(res.status).toBe(202);
    const event = await settled(res.json.id);
    expect(event.status).toBe("failed");
    expect(event.error).toMatch(/^insufficient_balance/);
    expect(event.attempts).toBe(1);
    const threads = await webhookThreads(key);
    const runs = (await gw.call(key, "GET", `/v1/threads/${threads[0].id}/runs`)).json.data;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: "failed" });
  });
});
