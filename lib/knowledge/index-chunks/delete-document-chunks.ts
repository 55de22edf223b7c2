import "server-only";
import { eq } from "drizzle-orm";
import { knowledgeChunks } from "@/db/schema";
import type { DbOrTx } from "@/db/types";

/**
 * Removes a document from retrieval at once: search reads its results back from this table, so a
 * deleted row is never returned, even by a process whose cache still holds its vector. The caller
 * has checked the document belongs to the company. Idempotent.
 */
export async function deleteDocumentChunks(db: DbOrTx, documentId: string): Promise<{ deleted: number }> {
  const rows = await db.delete(knowledgeChunks).where(eq(knowledgeChunks.documentId, documentId)).returning({ id: knowledgeChunks.id });
  return { deleted: rows.length };
}
