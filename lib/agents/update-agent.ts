import "server-only";
import { and, eq } from "drizzle-orm";
import { agents, webhooks, type Agent } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { agentNotFound, getAgentInCompany, getConductorProfile } from "./internal";
import type { UpdateAgentInput } from "./schemas";
import { defaultWebhookName } from "./webhook-name";

/**
 * PATCH semantics: only the fields given change, each checked as at creation. Pausing
 * (`is_active: false`) means nothing wakes the agent (neither its bound webhooks nor the bus);
 * events already routed to it still run. A change applies to events routed after it commits. A
 * rename renames the agent's endpoints still named after it (lib/agents/webhook-name.ts), in the
 * same transaction.
 * @throws not_found for another company's agent (checked first, whatever the body says);
 * not_found (param conductor_profile_id) for another company's profile; 400 for a profile without a model.
 */
export async function updateAgent(
  db: DbOrTx,
  args: { companyId: string; agentId: string; input: UpdateAgentInput },
): Promise<Agent> {
  const { companyId, input } = args;
  const agent = await getAgentInCompany(db, { companyId, agentId: args.agentId });
  const profile =
    input.conductor_profile_id === undefined
      ? null
      : await getConductorProfile(db, { companyId, profileId: input.conductor_profile_id });
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(agents)
      .set({
        name: input.name,
        conductorProfileId: profile?.id,
        topics: input.topics && [...new Set(input.topics)],
        isActive: input.is_active,
        updatedAt: new Date(),
      })
      .where(and(eq(agents.id, agent.id), eq(agents.companyId, companyId)))
      .returning();
    if (!row) throw agentNotFound(agent.id);
    if (input.name !== undefined && input.name !== agent.name) {
      await tx
        .update(webhooks)
        .set({ name: defaultWebhookName(row.name), updatedAt: new Date() })
        .where(
          and(
            eq(webhooks.companyId, companyId),
            eq(webhooks.agentId, agent.id),
            eq(webhooks.name, defaultWebhookName(agent.name)),
          ),
        );
    }
    return row;
  });
}
