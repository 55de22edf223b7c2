import "server-only";
import type PgBoss from "pg-boss";

/** A job as handlers see it (pg-boss with metadata: how many retries it has had, out of how many). */
export interface JobRun<T> {
  id: string;
  data: T;
  retryCount: number;
  retryLimit: number;
  /** Aborted when the job has run for the queue's `maxRunSeconds`: stop and let the attempt fail. */
  signal: AbortSignal;
}

/**
 * A queue a domain defines and the worker serves. Send options (expiry, retries) travel with each
 * job rather than the queue row, so changing them in config takes effect for new jobs at once.
 */
export interface QueueDefinition<T extends object> {
  name: string;
  sendOptions: () => Omit<PgBoss.SendOptions, "db">;
  /**
   * While a handler runs, its process keeps the job alive (a heartbeat pushes pg-boss's expiry
   * forward), up to this many seconds; a process that dies or stops beating lets the job expire
   * after its `expireInSeconds` and be retried elsewhere.
   */
  maxRunSeconds: () => number;
  /** Concurrent handlers per process. */
  concurrency: () => number;
  /**
   * Served on the production server's jobs thread (lib/jobs/jobs-thread.ts) rather than its main
   * thread: for handlers whose work (a model run) would otherwise share the requests' heap and event loop.
   */
  thread?: boolean;
  /** Throwing makes pg-boss retry the job (until its retry limit, then its dead letter queue). */
  handle: (job: JobRun<T>) => Promise<void>;
  /** Jobs that failed for good (retries spent, or expired on their last try) land here. */
  deadLetter?: { name: string; handle: (job: JobRun<T>) => Promise<void> };
}

const g = globalThis as { __cockpitQueues?: Map<string, QueueDefinition<object>> };
const registry = (g.__cockpitQueues ??= new Map());

export function defineQueue<T extends object>(queue: QueueDefinition<T>): QueueDefinition<T> {
  registry.set(queue.name, queue as unknown as QueueDefinition<object>);
  return queue;
}

export const definedQueues = (): QueueDefinition<object>[] => [...registry.values()];
