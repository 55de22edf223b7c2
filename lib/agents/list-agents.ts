import "server-only";
import { desc, eq } from "drizzle-orm";
import { agents, type Agent } from "@/db/schema";
import type { DbOrTx } from "@/db/types";

/** The company's agents, active and paused, newest first. */
export async function listAgents(db: DbOrTx, args: { companyId: string }): Promise<Agent[]> {
  return db
    .select()
    .from(agents)
    .where(eq(agents.companyId, args.companyId))
    .orderBy(desc(agents.createdAt))
    .limit(200);
}
