import "server-only";
import { sql } from "drizzle-orm";
import { knowledgeChunkVersions } from "@/db/schema";
import type { DbOrTx } from "@/db/types";

/**
 * Tells every process's search cache that the company's chunks changed. Call it last in the
 * transaction that changed them: its row lock is then held only until that commit.
 */
export async function bumpChunkVersion(db: DbOrTx, companyId: string): Promise<void> {
  await db
    .insert(knowledgeChunkVersions)
    .values({ companyId, version: 1 })
    .onConflictDoUpdate({
      target: knowledgeChunkVersions.companyId,
      set: { version: sql`${knowledgeChunkVersions.version} + 1` },
    });
}
