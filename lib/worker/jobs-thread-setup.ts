/**
 * Imported first by jobs-thread-main.ts: the thread takes the main thread's lease owner (its holds are
 * the process's) and wake-up token (the main thread wakes it by message, not NOTIFY) before any
 * module reads them.
 */
import { workerData } from "node:worker_threads";
import type { JobsThreadData } from "@/lib/jobs/jobs-thread";
import { leaseOwner } from "@/lib/process-channels.mjs";

const data = workerData as JobsThreadData;
leaseOwner.set(data.owner);
const g = globalThis as Record<string, unknown>;
g.__cockpitJobsWake = { token: data.wakeToken, pending: new Set<string>() };
