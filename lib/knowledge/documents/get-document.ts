import "server-only";
import type { KnowledgeDocument } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { getCollectionInCompany } from "../collections/internal";
import { getDocumentInCollection } from "./internal";

/** One document, to poll its status. @throws not_found (another company's collection or document too). */
export async function getDocument(
  db: DbOrTx,
  args: { companyId: string; collectionId: string; documentId: string },
): Promise<KnowledgeDocument> {
  await getCollectionInCompany(db, args);
  return getDocumentInCollection(db, args);
}
