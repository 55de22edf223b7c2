import "server-only";
import { knowledgeDocuments, type KnowledgeDocument } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { enqueueJob, notifyJobWorkers, prepareJobs } from "@/lib/jobs";
import { getActiveCollectionInCompany } from "../collections/internal";
import { indexQueue } from "../jobs/index-queue";
import { detectDocumentKind, MIME_BY_KIND } from "./detect-type";
import type { ReceivedUpload } from "./receive-upload";
import { commitUploadFile, removeStoredDocument, removeUploadFile, storageKeyFor } from "../storage";

const unsupportedType = () =>
  new AppError(
    "unsupported_media_type",
    "Unsupported file type: upload a PDF, TXT, Markdown, DOCX, XLSX, DOC or XLS file",
    {
      wireCode: "unsupported_media_type",
      param: "file",
    },
  );

/**
 * An upload becomes a `pending` document: kind decided from bytes and name (else 415), bytes moved
 * into storage, then the row and its indexing job in ONE transaction. The temporary file is
 * consumed either way.
 * @throws not_found when the collection is another company's or deactivated; 415.
 */
export async function createDocument(
  db: DbOrTx,
  args: { companyId: string; collectionId: string; upload: ReceivedUpload },
): Promise<KnowledgeDocument> {
  const { companyId, upload } = args;
  const id = newId("document");
  const key = storageKeyFor(companyId, id);
  let committed = false;
  try {
    const kind = await detectDocumentKind(upload.tmpPath, upload.filename);
    if (!kind) throw unsupportedType();
    const collection = await getActiveCollectionInCompany(db, args);
    await prepareJobs();
    await commitUploadFile(upload.tmpPath, key);
    const row = await db.transaction(async (tx) => {
      const [doc] = await tx
        .insert(knowledgeDocuments)
        .values({
          id,
          companyId,
          collectionId: collection.id,
          filename: upload.filename,
          mimeType: MIME_BY_KIND[kind],
          kind,
          sizeBytes: upload.size,
          folderPath: upload.folderPath,
          storageKey: key,
        })
        .returning();
      await enqueueJob(tx, indexQueue, { documentId: id, companyId });
      return doc!;
    });
    committed = true;
    // Committed: a worker free in any process may take it now rather than at its next poll.
    notifyJobWorkers(indexQueue.name);
    return row;
  } finally {
    if (!committed) {
      await removeUploadFile(upload.tmpPath);
      await removeStoredDocument(key);
    }
  }
}
