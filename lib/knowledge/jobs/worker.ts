import "server-only";
import { startJobs } from "@/lib/jobs";
// Defines the indexing queue, so this process serves it.
import "./index-queue";

/**
 * The knowledge worker: serves the indexing queue in this process (`npm start` in-process,
 * `npm run worker` alone; several processes may serve it at once). Returns the function that stops it.
 */
export function startKnowledgeWorker(): () => Promise<void> {
  return startJobs();
}
