import "server-only";
import { and, eq } from "drizzle-orm";
import { DOCUMENT_STATUS } from "@/db/enums";
import { knowledgeDocuments, type KnowledgeDocument } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { enqueueJob, notifyJobWorkers, prepareJobs } from "@/lib/jobs";
import { getActiveCollectionInCompany } from "../collections/internal";
import { indexQueue } from "../jobs/index-queue";
import { getDocumentInCollection } from "./internal";

/**
 * A `failed` document back to `pending` with a new indexing job, in one transaction.
 * @throws not_found (deactivated collection too); conflict when the document is not `failed`.
 */
export async function retryDocument(
  db: DbOrTx,
  args: { companyId: string; collectionId: string; documentId: string },
): Promise<KnowledgeDocument> {
  await getActiveCollectionInCompany(db, args);
  const doc = await getDocumentInCollection(db, args);
  await prepareJobs();
  const retried = await db.transaction(async (tx) => {
    // Status guard in WHERE: two concurrent retries enqueue one job.
    const [row] = await tx
      .update(knowledgeDocuments)
      .set({ status: DOCUMENT_STATUS.pending, error: null, attempts: 0, updatedAt: new Date() })
      .where(
        and(
          eq(knowledgeDocuments.id, doc.id),
          eq(knowledgeDocuments.companyId, args.companyId),
          eq(knowledgeDocuments.status, DOCUMENT_STATUS.failed),
        ),
      )
      .returning();
    if (!row)
      throw new AppError("conflict", `Only a failed document can be retried; this one is ${doc.status}`, {
        wireCode: "document_not_failed",
      });
    await enqueueJob(tx, indexQueue, { documentId: row.id, companyId: row.companyId });
    return row;
  });
  notifyJobWorkers(indexQueue.name);
  return retried;
}
