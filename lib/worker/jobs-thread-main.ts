/**
 * The jobs thread's entry (built by scripts/server/jobs-thread-build.mjs, started by
 * lib/jobs/jobs-thread.ts): serves the queues marked `thread` (webhook events) as `npm run worker`
 * would, inside the server process. It is the server process for everything it holds: it takes
 * the main thread's lease owner (credit leases, active runs), so the reconcilers never mistake
 * either thread's holds for a dead process's, and its bill journal is its own file next to the
 * main thread's. Stopped by a `stop` message: the job workers stop, then its shutdown hooks
 * (leases released, journal drained) run, then the thread ends.
 */
// First: the globals the modules below read (lease owner, wake-up token).
import "./jobs-thread-setup";
import os from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { notifyLocalWorker, startJobs } from "@/lib/jobs/start-jobs";
import { log } from "@/lib/log";
import { runShutdownHooks } from "@/lib/shutdown";
// Registers the run writer of the bill journal.
import "@/lib/runs/persist-run";
// Defines the webhook events' queue, so this thread serves it.
import "@/lib/webhooks/jobs/event-queue";
import type { JobsThreadData, JobsThreadMessage } from "@/lib/jobs/jobs-thread";

const data = workerData as JobsThreadData;

// Linux keeps a nice value per thread: the requests on the main thread go first when the cores are busy.
if (data.nice > 0) {
  try {
    os.setPriority(0, data.nice);
  } catch (err) {
    log.warn({ err }, "jobs thread: could not lower its priority; it runs at the process's");
  }
}

// As on the main thread (Next.js's server logs them): a library's stray rejection during a database
// outage (pg-boss failing a job it could not reach the database for) is logged, not fatal to the thread.
process.on("unhandledRejection", (err) => log.warn({ err }, "jobs thread: unhandled rejection"));

const stopJobs = startJobs();
let stopping = false;
parentPort?.on("message", (message: JobsThreadMessage) => {
  if (message.type === "wake") notifyLocalWorker(message.queue);
  else if (message.type === "stop" && !stopping) {
    stopping = true;
    void stopJobs()
      .catch((err: unknown) => log.warn({ err }, "jobs thread: job workers did not stop cleanly"))
      .then(() => runShutdownHooks((err) => log.warn({ err }, "jobs thread: shutdown hook failed")))
      .finally(() => process.exit(0));
  }
});
log.info({ nice: data.nice }, "jobs thread started");
