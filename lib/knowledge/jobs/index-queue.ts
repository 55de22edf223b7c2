import "server-only";
import { env } from "@/lib/env";
import { defineQueue } from "@/lib/jobs";
import { markDocumentFailedForGood, runIndexJob, type IndexJobData } from "./index-document-job";

const INDEX_QUEUE = "knowledge-index";

/**
 * Indexing jobs. At least once: a job re-delivered (its worker died, or it went past
 * KNOWLEDGE_JOB_EXPIRE_S without finishing and pg-boss's maintenance failed it) runs again from
 * the start, and the indexer's unique key per document and chunk position makes that harmless.
 * Retries back off exponentially from KNOWLEDGE_JOB_RETRY_DELAY_S; a job that fails for good
 * (retries spent, or expired on its last try) lands in the dead letter queue, whose handler marks
 * the document `failed`: no document stays `pending` without a job working on it.
 */
export const indexQueue = defineQueue<IndexJobData>({
  name: INDEX_QUEUE,
  sendOptions: () => ({
    retryLimit: env.KNOWLEDGE_JOB_RETRIES,
    retryDelay: env.KNOWLEDGE_JOB_RETRY_DELAY_S,
    retryBackoff: true,
    expireInSeconds: env.KNOWLEDGE_JOB_EXPIRE_S,
    deadLetter: `${INDEX_QUEUE}-failed`,
  }),
  maxRunSeconds: () => env.KNOWLEDGE_JOB_MAX_S,
  concurrency: () => env.KNOWLEDGE_WORKER_CONCURRENCY,
  handle: runIndexJob,
  deadLetter: { name: `${INDEX_QUEUE}-failed`, handle: markDocumentFailedForGood },
});
