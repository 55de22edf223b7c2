import "server-only";
import { and, eq } from "drizzle-orm";
import { agents, webhooks, type Webhook } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { defaultWebhookName, getAgentInCompany } from "@/lib/agents";
import { announceWebhookChanged } from "./authenticate-trigger";
import { webhookNotFound } from "./internal";
import type { UpdateWebhookInput } from "./schemas";

/**
 * Pauses or resumes the endpoint and/or rebinds it (`agent_id` null: the company bus). A pause
 * refuses deliveries from this commit on, as the cache is evicted everywhere in the same
 * transaction; accepted events are still processed. An endpoint still named after its old binding
 * takes the new one's name.
 * @throws not_found for another company's endpoint; not_found (param agent_id) for another
 * company's agent.
 */
export async function updateWebhook(
  db: DbOrTx,
  args: { companyId: string; webhookId: string; input: UpdateWebhookInput },
): Promise<Webhook> {
  const { companyId, input } = args;
  return db.transaction(async (tx) => {
    // The endpoint first (locked until commit): another company's id is a 404 whatever the body says.
    const [current] = await tx
      .select({ id: webhooks.id, name: webhooks.name, boundName: agents.name })
      .from(webhooks)
      .leftJoin(agents, and(eq(agents.id, webhooks.agentId), eq(agents.companyId, webhooks.companyId)))
      .where(and(eq(webhooks.id, args.webhookId), eq(webhooks.companyId, companyId)))
      .for("update", { of: webhooks });
    if (!current) throw webhookNotFound(args.webhookId);
    const agent = input.agent_id
      ? await getAgentInCompany(tx, { companyId, agentId: input.agent_id, param: "agent_id" })
      : null;
    const rebound = input.agent_id !== undefined;
    const followsBinding = current.name === defaultWebhookName(current.boundName);
    const [webhook] = await tx
      .update(webhooks)
      .set({
        isActive: input.is_active,
        agentId: rebound ? (agent?.id ?? null) : undefined,
        name: rebound && followsBinding ? defaultWebhookName(agent?.name ?? null) : undefined,
        updatedAt: new Date(),
      })
      .where(and(eq(webhooks.id, current.id), eq(webhooks.companyId, companyId)))
      .returning();
    await announceWebhookChanged(tx, current.id);
    return webhook!;
  });
}
