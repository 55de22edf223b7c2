import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { webhookEvents, webhooks } from "@/db/schema";
import { stopBoss } from "@/lib/jobs/boss";
import { acceptEvent, authenticateTrigger, createWebhook, rotateWebhookSecret } from "@/lib/webhooks";
import { makeCompany } from "../support/factories";

afterAll(() => stopBoss());

const input = { event_topic: "orders.created", payload: { n: 1 } };

describe("acceptEvent and authenticateTrigger", () => {
  it("stores the event with its job in one transaction; a key reused within 24 h is the same event, after 24 h a new one", async () => {
    const company = await makeCompany(db);
    const { webhook } = await createWebhook(db, { companyId: company.id });
    const first = await acceptEvent(db, { webhook, input, idempotencyKey: "k-1" });
    expect(first.duplicate).toBe(false);
    const [job] = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhook-event' AND data->>'eventId' = ${first.event.id}`);
    expect(job!.n).toBe(1);
    const again = await acceptEvent(db, { webhook, input, idempotencyKey: "k-1" });
    expect(again).toEqual({ event: first.event, duplicate: true });
    const [jobs] = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhook-event' AND data->>'eventId' = ${first.event.id}`);
    expect(jobs!.n).toBe(1);

    await db.update(webhookEvents).set({ createdAt: sql`now() - interval '25 hours'` }).where(eq(webhookEvents.id, first.event.id));
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
    const [jobs] = await db.execute<{ n: number }>(sql`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'eventId' = ${eventId}`);
    expect(jobs!.n).toBe(0);
  });

  it("a rotated-out secret works during the grace period only; the current one always", async () => {
    const company = await makeCompany(db);
    const { webhook, secret } = await createWebhook(db, { companyId: company.id });
    const { secret: next } = await rotateWebhookSecret(db, { companyId: company.id, webhookId: webhook.id });
    expect(next).not.toBe(secret);
    expect((await authenticateTrigger(db, { companyId: company.id, secret: next })).id).toBe(webhook.id);
    expect((await authenticateTrigger(db, { companyId: company.id, secret })).id).toBe(webhook.id);
    await db.update(webhooks).set({ rotatedAt: sql`now() - interval '2 days'` }).where(eq(webhooks.id, webhook.id));
    await expect(authenticateTrigger(db, { companyId: company.id, secret })).rejects.toMatchObject({ code: "forbidden" });
    expect((await authenticateTrigger(db, { companyId: company.id, secret: next })).id).toBe(webhook.id);
    const other = await makeCompany(db);
    await expect(rotateWebhookSecret(db, { companyId: other.id, webhookId: webhook.id })).rejects.toMatchObject({ code: "not_found" });
  });
});
