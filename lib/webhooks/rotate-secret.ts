import "server-only";
import { and, eq } from "drizzle-orm";
import { sql } from "@/db/sql";
import { webhooks, type Webhook } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { announceWebhookChanged } from "./authenticate-trigger";
import { webhookNotFound } from "./internal";
import { hashWebhookSecret, newWebhookSecret } from "./secrets";

/**
 * A new secret, returned once. The previous one works for WEBHOOK_SECRET_GRACE_S so senders can
 * move; only one previous secret is kept, so a second rotation ends the first one's grace.
 * @throws not_found for another company's endpoint or an unknown one.
 */
export async function rotateWebhookSecret(
  db: DbOrTx,
  args: { companyId: string; webhookId: string },
): Promise<{ webhook: Webhook; secret: string }> {
  const secret = newWebhookSecret();
  const [webhook] = await db
    .update(webhooks)
    .set({
      previousSecretHash: sql`${webhooks.secretHash}`,
      secretHash: hashWebhookSecret(secret),
      rotatedAt: sql`now()`,
      updatedAt: new Date(),
    })
    .where(and(eq(webhooks.id, args.webhookId), eq(webhooks.companyId, args.companyId)))
    .returning();
  if (!webhook) throw webhookNotFound(args.webhookId);
  await announceWebhookChanged(db, webhook.id);
  return { webhook, secret };
}
