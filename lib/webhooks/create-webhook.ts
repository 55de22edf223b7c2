import "server-only";
import { webhooks, type Webhook } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { defaultWebhookName, getAgentInCompany } from "@/lib/agents";
import { newId } from "@/lib/ids";
import { hashWebhookSecret, newWebhookSecret } from "./secrets";

/**
 * A new endpoint bound to `agentId` (the company's) or, without one, publishing to the company's
 * bus. Returns the secret once; only its SHA-256 is stored.
 * @throws not_found (param agent_id) for an unknown agent or another company's.
 */
export async function createWebhook(
  db: DbOrTx,
  args: { companyId: string; agentId?: string | null; name?: string | null },
): Promise<{ webhook: Webhook; secret: string }> {
  const agent = args.agentId
    ? await getAgentInCompany(db, { companyId: args.companyId, agentId: args.agentId, param: "agent_id" })
    : null;
  const secret = newWebhookSecret();
  const [webhook] = await db
    .insert(webhooks)
    .values({
      id: newId("webhook"),
      companyId: args.companyId,
      agentId: agent?.id ?? null,
      name: args.name ?? defaultWebhookName(agent?.name ?? null),
      secretHash: hashWebhookSecret(secret),
    })
    .returning();
  return { webhook: webhook!, secret };
}
