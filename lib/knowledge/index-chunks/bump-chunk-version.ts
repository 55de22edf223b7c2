import "server-only";
import { sql } from "@/db/sql";
import { knowledgeChunkVersions } from "@/db/schema";
import type { DbOrTx } from "@/db/types";

/** Tells every process's search cache the company's chunks changed. Call it last, so its row lock lasts only to commit. */
export async function bumpChunkVersion(db: DbOrTx, companyId: string): Promise<void> {
  await db
    .insert(knowledgeChunkVersions)
    .values({ companyId, version: 1 })
    .onConflictDoUpdate({
      target: knowledgeChunkVersions.companyId,
      set: { version: sql`${knowledgeChunkVersions.version} + 1` },
    });
}
