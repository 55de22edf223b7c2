import { z } from "zod";
import { db } from "@/db/client";
import { panelRoute, readJson } from "@/lib/http";
import { setWebhookSignature } from "@/lib/webhooks";

const Input = z.strictObject({ required: z.boolean() });

/** `{required: true}` → a new `whsec_` signing secret, shown this once; `false` → unsigned deliveries accepted again. */
export const POST = panelRoute<{ webhookId: string }>(async ({ req, auth, params }) => {
  const input = await readJson(req, Input);
  const { webhook, signingSecret } = await setWebhookSignature(db, {
    companyId: auth.companyId,
    webhookId: params.webhookId,
    required: input.required,
  });
  return Response.json({
    webhook_id: webhook.id,
    require_signature: webhook.requireSignature,
    signing_secret: signingSecret,
  });
});
