import "server-only";
import { and, desc, eq } from "drizzle-orm";
import { agents, type Agent } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { agentNotFound } from "./internal";

/** The company's agents, active and paused, newest first. */
export async function listAgents(db: DbOrTx, args: { companyId: string }): Promise<Agent[]> {
  return db.select().from(agents).where(eq(agents.companyId, args.companyId)).orderBy(desc(agents.createdAt)).limit(200);
}

/**
 * Pauses (`false`) or resumes an agent: a paused agent is woken by nothing (neither its bound
 * webhooks nor the bus); events already routed to it still run.
 * @throws not_found for another company's agent.
 */
export async function setAgentActive(db: DbOrTx, args: { companyId: string; agentId: string; isActive: boolean }): Promise<Agent> {
  const [row] = await db
    .update(agents)
    .set({ isActive: args.isActive, updatedAt: new Date() })
    .where(and(eq(agents.id, args.agentId), eq(agents.companyId, args.companyId)))
    .returning();
  if (!row) throw agentNotFound(args.agentId);
  return row;
}
