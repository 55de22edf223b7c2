import "server-only";
import { and, desc, eq } from "drizzle-orm";
import { knowledgeDocuments, type KnowledgeDocument } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { getCollectionInCompany } from "../collections/internal";

/** SPEC: the list is the 500 most recent documents, newest first, unpaged. */
const DOCUMENT_LIST_SIZE = 500;

/** Deactivated collections' documents too (kept for audit). @throws not_found for another company's collection. */
export async function listDocuments(
  db: DbOrTx,
  args: { companyId: string; collectionId: string },
): Promise<KnowledgeDocument[]> {
  const collection = await getCollectionInCompany(db, args);
  return db
    .select()
    .from(knowledgeDocuments)
    .where(and(eq(knowledgeDocuments.collectionId, collection.id), eq(knowledgeDocuments.companyId, args.companyId)))
    .orderBy(desc(knowledgeDocuments.createdAt), desc(knowledgeDocuments.id))
    .limit(DOCUMENT_LIST_SIZE);
}
