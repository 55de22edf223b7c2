/**
 * Imported first by jobs-thread-main.ts: the thread takes the main thread's lease owner (its holds are
 * the process's) and wake-up token (the main thread wakes it by message, not NOTIFY) before any
 * module reads them.
 */
import { workerData } from "node:worker_threads";
import type { JobsThreadData } from "@/lib/jobs/jobs-thread";

const data = workerData as JobsThreadData;
const g = globalThis as Record<symbol | string, unknown>;
g[Symbol.for("cockpit.lease-owner")] = data.owner;
g.__cockpitJobsWake = { token: data.wakeToken, pending: new Set<string>() };
