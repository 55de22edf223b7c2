import { db } from "@/db/client";
import { panelRoute } from "@/lib/http";
import { rotateWebhookSecret, toWebhookSecret } from "@/lib/webhooks";

/** A new secret (shown this once); the previous one keeps working for WEBHOOK_SECRET_GRACE_S. */
export const POST = panelRoute<{ webhookId: string }>(async ({ auth, params }) => {
  const { webhook, secret } = await rotateWebhookSecret(db, { companyId: auth.companyId, webhookId: params.webhookId });
  return Response.json(toWebhookSecret(webhook, secret));
});
