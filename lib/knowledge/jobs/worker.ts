import "server-only";
import { startJobs } from "@/lib/jobs";
// Defines the indexing queue, so this process serves it.
import "./index-queue";

/** Serves the indexing queue in this process; several processes may serve it. Returns the function that stops it. */
export function startKnowledgeWorker(): () => Promise<void> {
  return startJobs();
}
