import "server-only";
import { agents, type Agent } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { newId } from "@/lib/ids";
import { getConductorProfile } from "./internal";
import type { CreateAgentInput } from "./schemas";

/**
 * A new active agent on the company's profile (a soft-deleted one still resolves by id); the
 * profile must name a model.
 * @throws not_found (param conductor_profile_id) for another company's or an unknown profile; 400
 * without a model.
 */
export async function createAgent(db: DbOrTx, args: { companyId: string; input: CreateAgentInput }): Promise<Agent> {
  const { input } = args;
  const profile = await getConductorProfile(db, { companyId: args.companyId, profileId: input.conductor_profile_id });
  const [row] = await db
    .insert(agents)
    .values({
      id: newId("agent"),
      companyId: args.companyId,
      name: input.name,
      conductorProfileId: profile.id,
      topics: [...new Set(input.topics)],
    })
    .returning();
  return row!;
}
