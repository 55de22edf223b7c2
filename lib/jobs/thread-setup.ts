/**
 * The jobs thread's first module (lib/jobs/thread-main.ts imports it before anything else, so it
 * runs before the modules that read these globals): the thread is the server process for what it
 * holds, so it takes the main thread's lease owner (lib/billing/lease-owner.ts: credit leases and
 * active runs are the process's, never mistaken for a dead process's), and the main thread's
 * wake-up token (lib/jobs/start-jobs.ts: the main thread wakes it by message, not by its own NOTIFY).
 */
import { workerData } from "node:worker_threads";
import { leaseOwner } from "@/lib/process-channels.mjs";
import type { JobsThreadData } from "./jobs-thread";

const data = workerData as JobsThreadData;
leaseOwner.set(data.owner);
const g = globalThis as Record<string, unknown>;
g.__cockpitJobsWake = { token: data.wakeToken, pending: new Set<string>() };
