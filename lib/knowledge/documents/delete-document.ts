import "server-only";
import { and, eq } from "drizzle-orm";
import { knowledgeDocuments, type KnowledgeDocument } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { log } from "@/lib/log";
import { deleteDocumentChunks } from "../index-chunks";
import { getCollectionInCompany } from "../collections/internal";
import { documentNotFound, getDocumentInCollection } from "./internal";
import { removeStoredDocument } from "../storage";

/**
 * Its chunks leave retrieval in the same transaction as its row, then its bytes go; a job still
 * indexing finds no row and stops.
 * @throws not_found (another company's collection or document too; a second delete).
 */
export async function deleteDocument(
  db: DbOrTx,
  args: { companyId: string; collectionId: string; documentId: string },
): Promise<KnowledgeDocument> {
  await getCollectionInCompany(db, args);
  const doc = await getDocumentInCollection(db, args);
  const deleted = await db.transaction(async (tx) => {
    await deleteDocumentChunks(tx, doc.id);
    const [row] = await tx
      .delete(knowledgeDocuments)
      .where(and(eq(knowledgeDocuments.id, doc.id), eq(knowledgeDocuments.companyId, args.companyId)))
      .returning();
    if (!row) throw documentNotFound(doc.id);
    return row;
  });
  await removeStoredDocument(deleted.storageKey).catch((err: unknown) =>
    log.warn({ err, documentId: deleted.id }, "could not remove a deleted document's file"),
  );
  return deleted;
}
