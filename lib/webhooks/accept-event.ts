import "server-only";
import { and, eq } from "drizzle-orm";
import { sql } from "@/db/sql";
import { webhookEvents, type Webhook, type WebhookEvent } from "@/db/schema";
import { db as rootDb } from "@/db/client";
import type { DbOrTx, Tx } from "@/db/types";
import { groupTransaction } from "@/lib/persistence/group-transaction";
import { newId } from "@/lib/ids";
import { enqueueJobs, notifyJobWorkers, prepareJobs } from "@/lib/jobs";
import { toStorableJson } from "@/lib/persistence/pg-text";
import { webhookEventQueue } from "./jobs/event-queue";
import type { TriggerInput } from "./schemas";

/** A sender's retry with the same key within this window is the same event. */
const IDEMPOTENCY_WINDOW_HOURS = 24;

interface Delivery {
  webhook: Webhook;
  input: TriggerInput;
  idempotencyKey?: string | null;
}
interface Accepted {
  event: Pick<WebhookEvent, "id" | "status">;
  duplicate: boolean;
}

/** A key reused: the first event if it is within the window; else the key is released and the delivery inserted alone. */
async function acceptReusedKey(tx: Tx, d: Delivery, key: string): Promise<Accepted> {
  const { webhook, input } = d;
  const [first] = await tx
    .select({
      id: webhookEvents.id,
      status: webhookEvents.status,
      fresh: sql<boolean>`${webhookEvents.createdAt} > now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})`,
    })
    .from(webhookEvents)
    .where(and(eq(webhookEvents.webhookId, webhook.id), eq(webhookEvents.idempotencyKey, key)))
    .limit(1);
  if (first?.fresh) return { event: { id: first.id, status: first.status }, duplicate: true };
  if (first) await tx.update(webhookEvents).set({ idempotencyKey: null }).where(eq(webhookEvents.id, first.id));
  const [row] = await tx
    .insert(webhookEvents)
    .values({
      id: newId("webhookEvent"),
      companyId: webhook.companyId,
      webhookId: webhook.id,
      topic: input.event_topic,
      payload: sql`${toStorableJson(input.payload)}::jsonb`,
      idempotencyKey: key,
    })
    .onConflictDoNothing()
    .returning({ id: webhookEvents.id, status: webhookEvents.status });
  if (!row) throw new Error("webhook event insert conflicted twice");
  return { event: row, duplicate: false };
}

/**
 * Stores the deliveries' events and their jobs in two multi-row INSERTs in the caller's
 * transaction, in (endpoint, key) order so concurrent batches cannot deadlock. A delivery whose key
 * is taken is settled alone afterwards.
 */
async function acceptAll(tx: Tx, deliveries: Delivery[]): Promise<Accepted[]> {
  const rows = deliveries.map((d) => ({
    id: newId("webhookEvent"),
    company_id: d.webhook.companyId,
    webhook_id: d.webhook.id,
    topic: d.input.event_topic,
    payload: d.input.payload,
    idempotency_key: d.idempotencyKey ?? null,
  }));
  const lockOrder = (r: (typeof rows)[number]) => `${r.webhook_id}\u0000${r.idempotency_key ?? ""}`;
  // Code-unit order (not localeCompare, which may call distinct keys equal): the same total order in every batch.
  const ordered = rows.slice().sort((a, b) => (lockOrder(a) < lockOrder(b) ? -1 : lockOrder(a) > lockOrder(b) ? 1 : 0));
  const inserted = (await tx.execute(sql`
    INSERT INTO webhook_events (id, company_id, webhook_id, topic, payload, idempotency_key)
    SELECT id, company_id, webhook_id, topic, payload, idempotency_key
    FROM jsonb_to_recordset(${toStorableJson(ordered)}::jsonb) AS x(id text, company_id text, webhook_id text, topic text, payload jsonb, idempotency_key text)
    ON CONFLICT DO NOTHING
    RETURNING id, status`)) as unknown as Pick<WebhookEvent, "id" | "status">[];
  const byId = new Map(inserted.map((r) => [r.id, r]));
  const results: Accepted[] = [];
  for (const [i, d] of deliveries.entries()) {
    const row = byId.get(rows[i]!.id);
    const key = d.idempotencyKey ?? null;
    if (row) results.push({ event: row, duplicate: false });
    else if (key !== null) results.push(await acceptReusedKey(tx, d, key));
    else throw new Error("webhook event insert conflicted without an idempotency key");
  }
  const fresh = results.flatMap((r, i) =>
    r.duplicate ? [] : [{ eventId: r.event.id, companyId: deliveries[i]!.webhook.companyId }],
  );
  await enqueueJobs(tx, webhookEventQueue, fresh);
  return results;
}

/** The server's pool: deliveries arriving while a transaction is in flight share the next one. */
const acceptGrouped = groupTransaction("webhook-events", acceptAll);

/**
 * Stores an accepted event and its job in ONE transaction, shared on the server's pool with
 * concurrent deliveries (group-transaction.ts); the caller answers 202 only once both committed.
 * With an idempotency key the unique index decides: a duplicate within 24 h gets the first event
 * (`duplicate: true`); an older key is released to this one.
 */
export async function acceptEvent(conn: DbOrTx, delivery: Delivery): Promise<Accepted> {
  await prepareJobs();
  // A caller's transaction: inside it, alone.
  const accepted =
    conn === rootDb ? await acceptGrouped(delivery) : (await conn.transaction((tx) => acceptAll(tx, [delivery])))[0]!;
  // Committed: a worker of this process may take it now rather than at its next poll.
  if (!accepted.duplicate) notifyJobWorkers(webhookEventQueue.name);
  return accepted;
}
