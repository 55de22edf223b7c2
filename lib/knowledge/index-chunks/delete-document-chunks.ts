import "server-only";
import { eq } from "drizzle-orm";
import { knowledgeChunks } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { bumpChunkVersion } from "./bump-chunk-version";

/**
 * Search reads results back from this table, so a deleted row is never returned even from a stale
 * cache. The caller has checked the company. Idempotent.
 */
export async function deleteDocumentChunks(db: DbOrTx, documentId: string): Promise<{ deleted: number }> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .delete(knowledgeChunks)
      .where(eq(knowledgeChunks.documentId, documentId))
      .returning({ companyId: knowledgeChunks.companyId });
    for (const companyId of new Set(rows.map((r) => r.companyId))) await bumpChunkVersion(tx, companyId);
    return { deleted: rows.length };
  });
}
