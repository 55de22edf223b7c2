import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { webhookEvents, webhooks } from "@/db/schema";
import { stopBoss } from "@/lib/jobs/boss";
import {
  acceptEvent,
  announceWebhookChanged,
  authenticateTrigger,
  createWebhook,
  rotateWebhookSecret,
  setWebhookSignature,
} from "@/lib/webhooks";
import { makeCompany } from "../support/factories";

afterAll(() => stopBoss());

const input = { event_topic: "orders.created", payload: { n: 1 } };

describe("acceptEvent and authenticateTrigger", () => {
  it("stores the event with its job in one transaction; a key reused within 24 h is the same event, after 24 h a new one", async () => {
    const company = await makeCompany(db);
    const { webhook } = await createWebhook(db, { companyId: company.id });
    const first = await acceptEvent(db, { webhook, input, idempotencyKey: "k-1" });
    expect(first.duplicate).toBe(false);
    const [job] = await db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhook-event' AND data->>'eventId' = ${first.event.id}`,
    );
    expect(job!.n).toBe(1);
    const again = await acceptEvent(db, { webhook, input, idempotencyKey: "k-1" });
    // The same event (its status is whatever it is now: a worker of a parallel test file may already have processed it).
    expect(again.duplicate).toBe(true);
    expect(again.event.id).toBe(first.event.id);
    const [jobs] = await db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhook-event' AND data->>'eventId' = ${first.event.id}`,
    );
    expect(jobs!.n).toBe(1);

    await db
      .update(webhookEvents)
      .set({ createdAt: sql`now() - interval '25 hours'` })
      .where(eq(webhookEvents.id, first.event.id));
    const later = await acceptEvent(db, { webhook, input, idempotencyKey: "k-1" });
    expect(later.duplicate).toBe(false);
    expect(later.event.id).not.toBe(first.event.id);
    const [old] = await db.select().from(webhookEvents).where(eq(webhookEvents.id, first.event.id));
    expect(old!.idempotencyKey).toBeNull();
  });

  it("a failed transaction stores neither the event nor its job", async () => {
    const company = await makeCompany(db);
    const { webhook } = await createWebhook(db, { companyId: company.id });
    let eventId = "";
    await expect(
      db.transaction(async (tx) => {
        eventId = (await acceptEvent(tx, { webhook, input })).event.id;
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await db.select().from(webhookEvents).where(eq(webhookEvents.id, eventId))).toHaveLength(0);
    const [jobs] = await db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'eventId' = ${eventId}`,
    );
    expect(jobs!.n).toBe(0);
  });

  it("a rotated-out secret works during the grace period only; the current one always", async () => {
    const company = await makeCompany(db);
    const { webhook, secret } = await createWebhook(db, { companyId: company.id });
    const { secret: next } = await rotateWebhookSecret(db, { companyId: company.id, webhookId: webhook.id });
    expect(next).not.toBe(secret);
    expect((await authenticateTrigger(db, { companyId: company.id, secret: next })).id).toBe(webhook.id);
    expect((await authenticateTrigger(db, { companyId: company.id, secret })).id).toBe(webhook.id);
    // Two days later (the row moved back in time; every code path that changes an endpoint announces it).
    await db
      .update(webhooks)
      .set({ rotatedAt: sql`now() - interval '2 days'` })
      .where(eq(webhooks.id, webhook.id));
    await announceWebhookChanged(db, webhook.id);
    await expect(authenticateTrigger(db, { companyId: company.id, secret })).rejects.toMatchObject({
      code: "forbidden",
    });
    expect((await authenticateTrigger(db, { companyId: company.id, secret: next })).id).toBe(webhook.id);
    const other = await makeCompany(db);
    await expect(rotateWebhookSecret(db, { companyId: other.id, webhookId: webhook.id })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("deliveries arriving together share a transaction; one that fails fails alone, duplicates among them are one event", async () => {
    const company = await makeCompany(db);
    const { webhook } = await createWebhook(db, { companyId: company.id });
    const ghost = { ...webhook, id: "wh_doesnotexist" }; // its insert breaks the foreign key
    const settled = await Promise.allSettled([
      ...Array.from({ length: 30 }, (_, i) => acceptEvent(db, { webhook, input: { ...input, payload: { n: i } } })),
      acceptEvent(db, { webhook: ghost, input }),
      ...Array.from({ length: 5 }, () => acceptEvent(db, { webhook, input, idempotencyKey: "same-delivery" })),
    ]);
    expect(settled.filter((s) => s.status === "rejected")).toHaveLength(1);
    expect(settled[30]!.status).toBe("rejected");
    const dupes = settled
      .slice(31)
      .map((s) => (s as PromiseFulfilledResult<Awaited<ReturnType<typeof acceptEvent>>>).value);
    expect(new Set(dupes.map((d) => d.event.id)).size).toBe(1);
    expect(dupes.filter((d) => !d.duplicate)).toHaveLength(1);
    const stored = await db.select().from(webhookEvents).where(eq(webhookEvents.companyId, company.id));
    expect(stored).toHaveLength(31);
    const [jobs] = await db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'companyId' = ${company.id}`,
    );
    expect(jobs!.n).toBe(31);
  });

  it("deliveries repeating keys across batches in flight settle to one event and one job per key, promptly", async () => {
    const company = await makeCompany(db);
    const { webhook } = await createWebhook(db, { companyId: company.id });
    // Many deliveries over a few keys, each key arriving several times in scrambled order (two
    // batches in flight).
    const keys = Array.from({ length: 200 }, (_, i) => `key-${(i * 7) % 12}`);
    const started = Date.now();
    const results = await Promise.all(
      keys.map((k, i) => acceptEvent(db, { webhook, input: { ...input, payload: { i } }, idempotencyKey: k })),
    );
    // Rows are inserted in key order; a lock-order deadlock would stall a batch for deadlock_timeout (1 s).
    expect(Date.now() - started).toBeLessThan(1_000);
    const firsts = results.filter((r) => !r.duplicate);
    expect(firsts).toHaveLength(12);
    for (const k of new Set(keys))
      expect(new Set(results.filter((_, i) => keys[i] === k).map((r) => r.event.id)).size).toBe(1);
    const stored = await db.select().from(webhookEvents).where(eq(webhookEvents.companyId, company.id));
    expect(stored).toHaveLength(12);
    const [jobs] = await db.execute<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'companyId' = ${company.id}`,
    );
    expect(jobs!.n).toBe(12);
  });

  it("endpoints are cached per process, and a rotation evicts them at once: a second rotation within the grace period ends the first secret's", async () => {
    const company = await makeCompany(db);
    const { webhook, secret: first } = await createWebhook(db, { companyId: company.id });
    const { secret: second } = await rotateWebhookSecret(db, { companyId: company.id, webhookId: webhook.id });
    // Both known (and cached) now.
    expect((await authenticateTrigger(db, { companyId: company.id, secret: first })).id).toBe(webhook.id);
    expect((await authenticateTrigger(db, { companyId: company.id, secret: second })).id).toBe(webhook.id);
    // Served from the cache: a change behind the server's back is not seen...
    await db.update(webhooks).set({ rateLimitPerMinute: 7 }).where(eq(webhooks.id, webhook.id));
    expect((await authenticateTrigger(db, { companyId: company.id, secret: second })).rateLimitPerMinute).not.toBe(7);
    // ...but a rotation through the code is, at once: the first secret is out, the second in its grace.
    const { secret: third } = await rotateWebhookSecret(db, { companyId: company.id, webhookId: webhook.id });
    await expect(authenticateTrigger(db, { companyId: company.id, secret: first })).rejects.toMatchObject({
      code: "forbidden",
    });
    expect((await authenticateTrigger(db, { companyId: company.id, secret: second })).rateLimitPerMinute).toBe(7);
    expect((await authenticateTrigger(db, { companyId: company.id, secret: third })).id).toBe(webhook.id);
    // Requiring signatures evicts it too: the next delivery sees the setting.
    await setWebhookSignature(db, { companyId: company.id, webhookId: webhook.id, required: true });
    expect((await authenticateTrigger(db, { companyId: company.id, secret: third })).requireSignature).toBe(true);
  });
});
