/**
 * The jobs thread's entry: serves the queues marked `thread` inside the server process. It shares
 * the main thread's lease owner so reconcilers never take its holds for a dead process's, keeps its
 * own bill journal, and on `stop` stops its workers, then runs its shutdown hooks.
 */
// First: the globals the modules below read (lease owner, wake-up token).
import "./jobs-thread-setup";
import os from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { notifyLocalWorker, startJobs } from "@/lib/jobs/start-jobs";
import { log } from "@/lib/log";
import { processMetrics } from "@/lib/observability/metrics/families.mjs";
import { answerScrapes } from "@/lib/observability/metrics/jobs-thread-scrape";
import { startTracing } from "@/lib/observability/tracing/start.mjs";
import { sandboxPool } from "@/lib/process-channels.mjs";
import { handleProcessFaults } from "./handle-process-faults";
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

// A database outage does not end the thread: pg-boss's stray rejections are logged, and the
// driver's writes to a closed connection renew the pools.
handleProcessFaults("jobs thread");

// Its families are summed into the process's by the main thread's scrapes (no process-wide ones here).
if (data.metrics && parentPort) {
  const families = processMetrics({ processWide: false });
  families.probes.sandbox = () => sandboxPool.get()?.stats();
  answerScrapes(parentPort, () => families.registry.getMetricsAsJSON());
}

// Its own tracer provider (a thread shares no globals with the main thread), registered before the
// first job: a job started earlier would have no span for its run's spans to hang on.
const jobs = startTracing()
  .catch((err: unknown) => log.warn({ err }, "jobs thread: tracing did not start"))
  .then(() => startJobs());
let stopping = false;
parentPort?.on("message", (message: JobsThreadMessage) => {
  if (message.type === "wake") notifyLocalWorker(message.queue);
  else if (message.type === "stop" && !stopping) {
    stopping = true;
    void jobs
      .then((stopJobs) => stopJobs())
      .catch((err: unknown) => log.warn({ err }, "jobs thread: job workers did not stop cleanly"))
      .then(() => runShutdownHooks((err) => log.warn({ err }, "jobs thread: shutdown hook failed")))
      .finally(() => process.exit(0));
  }
});
log.info({ nice: data.nice }, "jobs thread started");
