import "server-only";
import { env } from "@/lib/env";
import { defineQueue } from "@/lib/jobs";
import { markDocumentFailedForGood, runIndexJob, type IndexJobData } from "./index-document-job";

const INDEX_QUEUE = "knowledge-index";

/**
 * At-least-once: a re-delivered job runs again from the start, harmless thanks to the per-position
 * key. A job that fails for good lands in the dead letter queue, which marks the document `failed`,
 * so none stays `pending`.
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
