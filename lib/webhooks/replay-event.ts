import "server-only";
import { and, eq, inArray } from "drizzle-orm";
import { WEBHOOK_EVENT_STATUS, WEBHOOK_RUN_STATUS } from "@/db/enums";
import { webhookEventRuns, webhookEvents, type WebhookEvent } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { enqueueJob, notifyJobWorkers, prepareJobs } from "@/lib/jobs";
import { webhookEventQueue } from "./jobs/event-queue";

/**
 * Replays a `failed` or `dead` event: failed agents get a new run on the same thread, completed
 * ones are not rerun, an unrouted event is routed now. The event and its new job commit together.
 * @throws not_found for another company's event; conflict unless it is failed or dead.
 */
export async function replayEvent(db: DbOrTx, args: { companyId: string; eventId: string }): Promise<WebhookEvent> {
  await prepareJobs();
  const event = await db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.id, args.eventId), eq(webhookEvents.companyId, args.companyId)))
      .for("update");
    if (!row)
      throw new AppError("not_found", `No webhook event found with id '${args.eventId}'`, {
        wireCode: "webhook_event_not_found",
      });
    if (row.status !== WEBHOOK_EVENT_STATUS.failed && row.status !== WEBHOOK_EVENT_STATUS.dead) {
      throw new AppError("conflict", `Only a failed or dead event can be replayed (this one is ${row.status})`, {
        wireCode: "event_not_replayable",
      });
    }
    await tx
      .update(webhookEventRuns)
      .set({ status: WEBHOOK_RUN_STATUS.pending, runId: null, error: null, updatedAt: new Date() })
      .where(
        and(
          eq(webhookEventRuns.eventId, row.id),
          inArray(webhookEventRuns.status, [
            WEBHOOK_RUN_STATUS.failed,
            WEBHOOK_RUN_STATUS.pending,
            WEBHOOK_RUN_STATUS.running,
          ]),
        ),
      );
    const claims = await tx
      .select({ agentId: webhookEventRuns.agentId })
      .from(webhookEventRuns)
      .where(eq(webhookEventRuns.eventId, row.id));
    const [updated] = await tx
      .update(webhookEvents)
      .set({
        status: claims.length > 0 ? WEBHOOK_EVENT_STATUS.routed : WEBHOOK_EVENT_STATUS.accepted,
        error: null,
        completedAt: null,
        updatedAt: new Date(),
      })
      .where(eq(webhookEvents.id, row.id))
      .returning();
    await enqueueJob(tx, webhookEventQueue, { eventId: row.id, companyId: row.companyId });
    return updated!;
  });
  notifyJobWorkers(webhookEventQueue.name);
  return event;
}
