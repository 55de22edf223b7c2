import "server-only";
import fs from "node:fs";
import { isMainThread, Worker } from "node:worker_threads";
import { currentLeaseOwner, type LeaseOwner } from "@/lib/billing/lease-owner";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { metricsOn, scrapeJobsThread } from "@/lib/observability/metrics/jobs-thread-scrape";
import { adoptJobsThreadJournal } from "@/lib/persistence/bill-journal";

/**
 * The server's jobs thread: queues marked `thread` run on a worker thread with its own heap and
 * event loop, so their garbage collection and callbacks never stall requests; it runs at nice
 * JOBS_THREAD_NICE. Started on the first sign of work, restarted after a death once its bill
 * journal is adopted. Without the built file (`next dev`, `npm run worker`, JOBS_THREAD=0) every
 * queue is served on the main thread.
 */
/** The thread's nice value (Linux keeps one per thread). */
const JOBS_THREAD_NICE = 10;
/** How long a stopping thread gets to finish (its shutdown hooks included) before it is terminated. */
const STOP_WAIT_MS = 2_500;

export interface JobsThreadData {
  owner: LeaseOwner;
  nice: number;
  /** The main thread's NOTIFY token (lib/jobs/start-jobs.ts): its own wake-ups reach the thread by message. */
  wakeToken: string;
  /** The process serves metrics: the thread keeps families for its scrapes. */
  metrics: boolean;
}
export type JobsThreadMessage = { type: "wake"; queue: string } | { type: "stop" };

interface Running {
  worker: Worker;
  exited: Promise<void>;
}

const g = globalThis as {
  __cockpitJobsThread?: { running?: Running; starting?: Promise<void>; stopped: boolean; file?: string | null };
  __cockpitJobsWake?: { token: string };
};
const state = (g.__cockpitJobsThread ??= { stopped: false });

/** The built thread, when this is the production server's main thread and it has one (looked up once). */
function threadFile(): string | null {
  if (state.file === undefined) {
    const file = env.COCKPIT_JOBS_THREAD_FILE;
    state.file = isMainThread && file && fs.existsSync(file) ? file : null;
  }
  return state.file;
}

/** Whether this thread hands the `thread` queues to a jobs thread (the production server's main thread). */
export function delegatesToJobsThread(): boolean {
  return !state.stopped && threadFile() !== null;
}

/** The thread is running (the idle check need not look for its work). */
export const jobsThreadRunning = (): boolean => state.running !== undefined;

function spawn(file: string): Running {
  const data: JobsThreadData = {
    owner: currentLeaseOwner(),
    nice: JOBS_THREAD_NICE,
    wakeToken: g.__cockpitJobsWake?.token ?? "",
    metrics: metricsOn(),
  };
  // The server's V8 flags are the process's; the thread takes none of its own.
  const worker = new Worker(file, { workerData: data, execArgv: [], stdout: false, stderr: false });
  scrapeJobsThread(worker);
  const exited = new Promise<void>((resolve) => {
    worker.once("exit", (code) => {
      if (state.running?.worker === worker) state.running = undefined;
      if (!state.stopped) log.warn({ code }, "jobs thread exited; it starts again on the next job");
      // What it journaled and had not written yet becomes the main thread's to write.
      adoptJobsThreadJournal().catch((err: unknown) =>
        log.error({ err }, "could not adopt the jobs thread's bill journal"),
      );
      resolve();
    });
  });
  worker.on("error", (err) => log.error({ err }, "jobs thread failed"));
  return { worker, exited };
}

/** Starts the jobs thread if it is not running (idempotent; cheap when it runs). */
export function ensureJobsThread(): void {
  if (state.running || state.starting || !delegatesToJobsThread()) return;
  const file = threadFile()!;
  state.starting = adoptJobsThreadJournal()
    .catch((err: unknown) => log.error({ err }, "could not adopt the jobs thread's bill journal"))
    .then(() => {
      if (!state.running && !state.stopped) state.running = spawn(file);
    })
    .finally(() => (state.starting = undefined));
}

/** Tells the thread's workers of `queue` that a job was committed here (no wait for their poll). */
export function wakeJobsThread(queue: string): void {
  state.running?.worker.postMessage({ type: "wake", queue } satisfies JobsThreadMessage);
}

/** Stops the thread (server shutdown): its workers stop, its leases are released, its journal drained. */
export async function stopJobsThread(): Promise<void> {
  state.stopped = true;
  await state.starting;
  const running = state.running;
  if (!running) return;
  running.worker.postMessage({ type: "stop" } satisfies JobsThreadMessage);
  const timer = setTimeout(() => void running.worker.terminate(), STOP_WAIT_MS);
  await running.exited;
  clearTimeout(timer);
}
