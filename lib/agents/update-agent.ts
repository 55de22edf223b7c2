import "server-only";
import { and, eq } from "drizzle-orm";
import { agents, webhooks, type Agent } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { agentNotFound, getAgentInCompany, getConductorProfile } from "./internal";
import type { UpdateAgentInput } from "./schemas";
import { defaultWebhookName } from "./webhook-name";

/**
 * PATCH: only the given fields change, checked as at creation. Pausing stops new wake-ups; events
 * already routed still run. A rename also renames the endpoints still named after the agent, in the
 * same transaction.
 * @throws not_found for another company's agent (checked first) or profile; 400 for a profile
 * without a model.
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
