import "server-only";
import type PgBoss from "pg-boss";
import { inJobSpans } from "@/lib/observability/tracing/job-span";
import { TRACING } from "@/lib/observability/tracing/tracer";

/** A job as handlers see it (pg-boss with metadata: how many retries it has had, out of how many). */
export interface JobRun<T> {
  id: string;
  data: T;
  retryCount: number;
  retryLimit: number;
  /** Aborted when the job has run for the queue's `maxRunSeconds`: stop and let the attempt fail. */
  signal: AbortSignal;
}

/** A queue a domain defines and the worker serves. Send options travel with each job, so config changes apply at once. */
export interface QueueDefinition<T extends object> {
  name: string;
  sendOptions: () => Omit<PgBoss.SendOptions, "db">;
  /**
   * Seconds a running handler keeps its job alive by heartbeat; a process that dies or stops
   * beating lets the job expire after `expireInSeconds` and be retried elsewhere.
   */
  maxRunSeconds: () => number;
  /** Concurrent handlers per process. */
  concurrency: () => number;
  /** Served on the jobs thread, for handlers (a model run) that should not share the requests' heap and event loop. */
  thread?: boolean;
  /** Throwing makes pg-boss retry the job (until its retry limit, then its dead letter queue). */
  handle: (job: JobRun<T>) => Promise<void>;
  /** Jobs that failed for good (retries spent, or expired on their last try) land here. */
  deadLetter?: { name: string; handle: (job: JobRun<T>) => Promise<void> };
}

const g = globalThis as { __cockpitQueues?: Map<string, QueueDefinition<object>> };
const registry = (g.__cockpitQueues ??= new Map());

export function defineQueue<T extends object>(queue: QueueDefinition<T>): QueueDefinition<T> {
  // Traced, each job is the root span of its own trace.
  const served = TRACING ? { ...queue, handle: inJobSpans(queue.name, queue.handle) } : queue;
  registry.set(queue.name, served as unknown as QueueDefinition<object>);
  return queue;
}

export const definedQueues = (): QueueDefinition<object>[] => [...registry.values()];
