import "server-only";
import { agents, type Agent } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { newId } from "@/lib/ids";
import { getConductorProfile } from "./internal";
import type { CreateAgentInput } from "./schemas";

/**
 * A new active agent running the company's profile `conductor_profile_id` (a soft-deleted profile
 * is allowed: it keeps resolving by id). Its runs use the profile's model, so the profile must name one.
 * @throws not_found (param conductor_profile_id) for another company's or an unknown profile; 400 without a model.
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
