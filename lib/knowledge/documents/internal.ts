import "server-only";
import { and, eq } from "drizzle-orm";
import { knowledgeDocuments, type KnowledgeDocument } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";

export const documentNotFound = (id: string) =>
  new AppError("not_found", `No document found with id '${id}'`, { wireCode: "document_not_found" });

/**
 * A document of the company in that collection.
 * @throws not_found when it does not exist, is in another collection or another company's.
 */
export async function getDocumentInCollection(
  db: DbOrTx,
  args: { companyId: string; collectionId: string; documentId: string },
): Promise<KnowledgeDocument> {
  const [row] = await db
    .select()
    .from(knowledgeDocuments)
    .where(
      and(
        eq(knowledgeDocuments.id, args.documentId),
        eq(knowledgeDocuments.companyId, args.companyId),
        eq(knowledgeDocuments.collectionId, args.collectionId),
      ),
    )
    .limit(1);
  if (!row) throw documentNotFound(args.documentId);
  return row;
}
