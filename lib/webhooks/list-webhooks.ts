import "server-only";
import { and, desc, eq, inArray } from "drizzle-orm";
import {
  webhookEventRuns,
  webhookEvents,
  webhooks,
  type Webhook,
  type WebhookEvent,
  type WebhookEventRun,
} from "@/db/schema";
import type { DbOrTx } from "@/db/types";

/** The company's endpoints, newest first (secrets are never readable: only their hashes are stored). */
export async function listWebhooks(db: DbOrTx, args: { companyId: string }): Promise<Webhook[]> {
  return db
    .select()
    .from(webhooks)
    .where(eq(webhooks.companyId, args.companyId))
    .orderBy(desc(webhooks.createdAt))
    .limit(200);
}

export interface EventWithRuns extends WebhookEvent {
  runs: WebhookEventRun[];
}

/** The company's most recent events (optionally of one endpoint or one agent's), with the runs each woke. */
export async function listRecentEvents(
  db: DbOrTx,
  args: { companyId: string; webhookId?: string; agentId?: string; limit?: number },
): Promise<EventWithRuns[]> {
  const limit = Math.min(args.limit ?? 50, 200);
  let eventIds: string[] | undefined;
  if (args.agentId) {
    const woke = await db
      .select({ eventId: webhookEventRuns.eventId })
      .from(webhookEventRuns)
      .where(and(eq(webhookEventRuns.companyId, args.companyId), eq(webhookEventRuns.agentId, args.agentId)))
      .orderBy(desc(webhookEventRuns.createdAt))
      .limit(limit);
    eventIds = woke.map((w) => w.eventId);
    if (eventIds.length === 0) return [];
  }
  const events = await db
    .select()
    .from(webhookEvents)
    .where(
      and(
        eq(webhookEvents.companyId, args.companyId),
        args.webhookId ? eq(webhookEvents.webhookId, args.webhookId) : undefined,
        eventIds ? inArray(webhookEvents.id, eventIds) : undefined,
      ),
    )
    .orderBy(desc(webhookEvents.createdAt), desc(webhookEvents.id))
    .limit(limit);
  if (events.length === 0) return [];
  const claims = await db
    .select()
    .from(webhookEventRuns)
    .where(
      and(
        eq(webhookEventRuns.companyId, args.companyId),
        inArray(
          webhookEventRuns.eventId,
          events.map((e) => e.id),
        ),
      ),
    );
  return events.map((e) => ({ ...e, runs: claims.filter((c) => c.eventId === e.id) }));
}
