import "server-only";
import { and, eq } from "drizzle-orm";
import { sql } from "@/db/sql";
import { db } from "@/db/client";
import { DOCUMENT_STATUS } from "@/db/enums";
import { knowledgeDocuments, type KnowledgeDocument } from "@/db/schema";
import { env } from "@/lib/env";
import type { JobRun } from "@/lib/jobs";
import { log } from "@/lib/log";
import { IndexingError, type IndexStage } from "../contracts";
import { readStoredDocument } from "../storage";
import { deleteDocumentChunks, indexDocument } from "../index-chunks";
import { parseDocument } from "../parse";

export interface IndexJobData {
  documentId: string;
  companyId: string;
}

const pendingDocument = (data: IndexJobData) =>
  and(
    eq(knowledgeDocuments.id, data.documentId),
    eq(knowledgeDocuments.companyId, data.companyId),
    eq(knowledgeDocuments.status, DOCUMENT_STATUS.pending),
  );

/** Marks the document failed with `"<stage>: <reason>"`, only while it is pending (idempotent). */
async function markFailed(data: IndexJobData, error: string): Promise<void> {
  await db
    .update(knowledgeDocuments)
    .set({ status: DOCUMENT_STATUS.failed, error, updatedAt: new Date() })
    .where(pendingDocument(data));
}

/**
 * One indexing attempt: store → parse → chunk, embed, index → `ready`, only if still pending (a
 * re-delivered job does nothing). An IndexingError fails the document for good; anything else is
 * thrown for pg-boss to retry.
 */
export async function runIndexJob(job: JobRun<IndexJobData>): Promise<void> {
  const data = job.data;
  const [doc] = await db
    .update(knowledgeDocuments)
    .set({ attempts: sql`${knowledgeDocuments.attempts} + 1`, updatedAt: new Date() })
    .where(pendingDocument(data))
    .returning();
  if (!doc) return;
  let stage: IndexStage = "store";
  try {
    job.signal.throwIfAborted();
    const bytes = await readStoredDocument(doc.storageKey).catch((err: unknown) => {
      throw new IndexingError("store", "the uploaded file is missing from storage; upload it again", { cause: err });
    });
    stage = "parse";
    const parsed = await parseDocument({ bytes, filename: doc.filename, kind: doc.kind, signal: job.signal });
    job.signal.throwIfAborted();
    stage = "index";
    const { chunkCount } = await indexDocument(db, {
      companyId: doc.companyId,
      collectionId: doc.collectionId,
      documentId: doc.id,
      filename: doc.filename,
      folderPath: doc.folderPath,
      parsed,
      signal: job.signal,
    });
    await finish(doc, chunkCount);
  } catch (err) {
    if (err instanceof IndexingError) {
      log.info({ documentId: doc.id, stage: err.stage, reason: err.reason }, "document failed indexing");
      await markFailed(data, err.message);
      return;
    }
    log.warn(
      { err, documentId: doc.id, stage, attempt: job.retryCount + 1, of: job.retryLimit + 1 },
      "indexing attempt failed",
    );
    if (job.retryCount >= job.retryLimit) {
      const reason = job.signal.aborted
        ? `indexing took longer than ${env.KNOWLEDGE_JOB_MAX_S} s on every attempt; split the document into smaller files`
        : `indexing failed ${job.retryCount + 1} times on an internal error; retry the document later`;
      await markFailed(data, `${stage}: ${reason}`);
      return;
    }
    throw err;
  }
}

async function finish(doc: KnowledgeDocument, chunkCount: number): Promise<void> {
  const now = new Date();
  const [ready] = await db
    .update(knowledgeDocuments)
    .set({ status: DOCUMENT_STATUS.ready, chunkCount, error: null, indexedAt: now, updatedAt: now })
    .where(pendingDocument({ documentId: doc.id, companyId: doc.companyId }))
    .returning({ id: knowledgeDocuments.id });
  if (ready) return;
  // Deleted while we indexed: its chunks written after the delete's commit must not stay retrievable.
  const [still] = await db
    .select({ id: knowledgeDocuments.id })
    .from(knowledgeDocuments)
    .where(eq(knowledgeDocuments.id, doc.id))
    .limit(1);
  if (!still) await deleteDocumentChunks(db, doc.id);
}

/** Dead letter: the job failed for good without its handler saying why (its worker died or hung on the last try). */
export async function markDocumentFailedForGood(job: JobRun<IndexJobData>): Promise<void> {
  await markFailed(
    job.data,
    "index: indexing stopped without finishing on every attempt (the worker was stopped or timed out); retry the document",
  );
}
