import "server-only";
import { and, eq } from "drizzle-orm";
import { agents, type Agent, type Profile } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { getProfileInCompany } from "@/lib/profiles";

export const agentNotFound = (id: string, param: string | null = null) =>
  new AppError("not_found", `No agent found with id '${id}'`, { wireCode: "agent_not_found", param });

/**
 * An agent of the company, active or paused.
 * @throws not_found when it does not exist or belongs to another company (the same answer).
 */
export async function getAgentInCompany(
  db: DbOrTx,
  args: { companyId: string; agentId: string; param?: string },
): Promise<Agent> {
  const [row] = await db
    .select()
    .from(agents)
    .where(and(eq(agents.id, args.agentId), eq(agents.companyId, args.companyId)))
    .limit(1);
  if (!row) throw agentNotFound(args.agentId, args.param ?? null);
  return row;
}

/**
 * The company's profile an agent may run (a soft-deleted one still resolves by id); it must name a
 * model.
 * @throws not_found (param conductor_profile_id) for another company's or an unknown profile; 400
 * without a model.
 */
export async function getConductorProfile(
  db: DbOrTx,
  args: { companyId: string; profileId: string },
): Promise<Profile> {
  const profile = await getProfileInCompany(db, args).catch((err: unknown) => {
    if (err instanceof AppError && err.code === "not_found") {
      throw new AppError("not_found", err.message, { wireCode: "profile_not_found", param: "conductor_profile_id" });
    }
    throw err;
  });
  if (!profile.modelSlug) {
    throw new AppError(
      "invalid_request",
      `Profile '${profile.id}' names no model (model_slug); an agent runs its profile's model`,
      {
        param: "conductor_profile_id",
      },
    );
  }
  return profile;
}
