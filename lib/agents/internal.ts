import "server-only";
import { and, eq } from "drizzle-orm";
import { agents, type Agent } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";

export const agentNotFound = (id: string, param: string | null = null) =>
  new AppError("not_found", `No agent found with id '${id}'`, { wireCode: "agent_not_found", param });

/**
 * An agent of the company, active or paused.
 * @throws not_found when it does not exist or belongs to another company (the same answer).
 */
export async function getAgentInCompany(db: DbOrTx, args: { companyId: string; agentId: string; param?: string }): Promise<Agent> {
  const [row] = await db
    .select()
    .from(agents)
    .where(and(eq(agents.id, args.agentId), eq(agents.companyId, args.companyId)))
    .limit(1);
  if (!row) throw agentNotFound(args.agentId, args.param ?? null);
  return row;
}
