import "server-only";
import { and, eq, sql } from "drizzle-orm";
import { webhookEvents, type Webhook, type WebhookEvent } from "@/db/schema";
import { db as rootDb } from "@/db/client";
import type { DbOrTx, Tx } from "@/db/types";
import { inGroupTransaction } from "@/lib/persistence/group-transaction";
import { newId } from "@/lib/ids";
import { enqueueJob, notifyJobWorkers, prepareJobs } from "@/lib/jobs";
import { toStorableJson } from "@/lib/persistence/pg-text";
import { webhookEventQueue } from "./jobs/event-queue";
import type { TriggerInput } from "./schemas";

/** A sender's retry with the same key within this window is the same event. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;

/**
 * Stores an accepted event and enqueues its `webhook-event` job in ONE transaction: when this
 * resolves, both are committed (the caller answers 202 only then), and a failure stores neither.
 * On the server's pool that transaction is shared with the deliveries arriving meanwhile
 * (lib/persistence/group-transaction.ts: one COMMIT and WAL flush for all of them).
 *
 * With an idempotency key, the unique index (webhook, key) decides: a concurrent duplicate waits
 * for the first insert's commit and then finds its row; a duplicate within 24 h returns the first
 * event (`duplicate: true`, no second job). A key last used more than 24 h ago is released from
 * its old event and this delivery is a new event.
 */
export async function acceptEvent(
  conn: DbOrTx,
  args: { webhook: Webhook; input: TriggerInput; idempotencyKey?: string | null },
): Promise<{ event: Pick<WebhookEvent, "id" | "status">; duplicate: boolean }> {
  const { webhook, input } = args;
  const key = args.idempotencyKey ?? null;
  await prepareJobs();
  const unit = async (tx: Tx) => {
    const insert = () =>
      tx
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
    let [row] = await insert();
    if (!row && key !== null) {
      const [first] = await tx
        .select({ id: webhookEvents.id, status: webhookEvents.status, fresh: sql<boolean>`${webhookEvents.createdAt} > now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})` })
        .from(webhookEvents)
        .where(and(eq(webhookEvents.webhookId, webhook.id), eq(webhookEvents.idempotencyKey, key)))
        .limit(1);
      if (first?.fresh) return { event: { id: first.id, status: first.status }, duplicate: true };
      if (first) await tx.update(webhookEvents).set({ idempotencyKey: null }).where(eq(webhookEvents.id, first.id));
      [row] = await insert();
    }
    if (!row) throw new Error("webhook event insert conflicted twice");
    await enqueueJob(tx, webhookEventQueue, { eventId: row.id, companyId: webhook.companyId });
    return { event: row, duplicate: false };
  };
  // The server's pool: shared with the other deliveries arriving meanwhile; a caller's transaction: inside it.
  const accepted = conn === rootDb ? await inGroupTransaction(unit) : await conn.transaction(unit);
  // Committed: a worker of this process may take it now rather than at its next poll.
  if (!accepted.duplicate) notifyJobWorkers(webhookEventQueue.name);
  return accepted;
}
