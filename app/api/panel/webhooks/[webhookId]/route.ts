import { db } from "@/db/client";
import { panelRoute, readJson } from "@/lib/http";
import { toPublicWebhook, UpdateWebhookInput, updateWebhook } from "@/lib/webhooks";

/** Pause (`is_active: false`) or resume an endpoint, and/or bind it to another agent (`agent_id`; null: the company bus). */
export const PATCH = panelRoute<{ webhookId: string }>(async ({ req, auth, params }) => {
  const input = await readJson(req, UpdateWebhookInput);
  const webhook = await updateWebhook(db, { companyId: auth.companyId, webhookId: params.webhookId, input });
  return Response.json(toPublicWebhook(webhook));
});
