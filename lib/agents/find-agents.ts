import "server-only";
import { and, eq } from "drizzle-orm";
import { agents, type Agent } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { matchesAny } from "./topics";

/** The company's active agents whose topic patterns match `topic` (the company bus). */
export async function findAgentsForTopic(db: DbOrTx, args: { companyId: string; topic: string }): Promise<Agent[]> {
  const rows = await db
    .select()
    .from(agents)
    .where(and(eq(agents.companyId, args.companyId), eq(agents.isActive, true)));
  return rows.filter((a) => matchesAny(a.topics, args.topic));
}
