import { z } from "zod";
import { db } from "@/db/client";
import { panelRoute, readJson } from "@/lib/http";
import { createWebhook, toWebhookSecret, WebhookName } from "@/lib/webhooks";

const CreateWebhookInput = z.strictObject({
  agent_id: z.string().min(1).max(100).nullish(),
  name: WebhookName.nullish(),
});

/** 201 `{webhook_id, secret, url}`: the secret is shown this once. */
export const POST = panelRoute(async ({ req, auth }) => {
  const input = await readJson(req, CreateWebhookInput);
  const { webhook, secret } = await createWebhook(db, {
    companyId: auth.companyId,
    agentId: input.agent_id ?? null,
    name: input.name ?? null,
  });
  return Response.json(toWebhookSecret(webhook, secret), { status: 201 });
});
