import "server-only";
import { and, eq } from "drizzle-orm";
import { webhooks, type Webhook } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { announceWebhookChanged } from "./authenticate-trigger";
import { webhookNotFound } from "./internal";
import { newSigningSecret } from "./signature";

/**
 * Requires (or stops requiring) Standard Webhooks signatures; requiring makes and returns a new
 * signing secret each time.
 * @throws not_found for another company's endpoint.
 */
export async function setWebhookSignature(
  db: DbOrTx,
  args: { companyId: string; webhookId: string; required: boolean },
): Promise<{ webhook: Webhook; signingSecret: string | null }> {
  const signingSecret = args.required ? newSigningSecret() : null;
  const [webhook] = await db
    .update(webhooks)
    .set({ requireSignature: args.required, signingSecret, updatedAt: new Date() })
    .where(and(eq(webhooks.id, args.webhookId), eq(webhooks.companyId, args.companyId)))
    .returning();
  if (!webhook) throw webhookNotFound(args.webhookId);
  await announceWebhookChanged(db, webhook.id);
  return { webhook, signingSecret };
}
