import "server-only";
import type { SQL } from "drizzle-orm";
import { sql } from "@/db/sql";
import type PgBoss from "pg-boss";
import type { DbOrTx } from "@/db/types";
import { getBoss } from "./boss";
import type { QueueDefinition } from "./queues";
import { ensureQueues, wakeJobWorkers } from "./start-jobs";

/** pg-boss's `$n` statement text and values as one drizzle statement (so it runs on `db`, a transaction included). */
function toStatement(text: string, values: unknown[]): SQL {
  const parts = text.split(/\$(\d+)/);
  const chunks = parts.map((part, i) => {
    if (i % 2 === 0) return sql.raw(part);
    const value = values[Number(part) - 1] ?? null;
    // pg sends undefined as NULL and objects as JSON; drizzle would drop the first and postgres.js
    // mangle the second.
    const param =
      value !== null && typeof value === "object" && !(value instanceof Date) ? JSON.stringify(value) : value;
    return sql`${param}`;
  });
  return sql.join(chunks, sql.raw(""));
}

/** pg-boss's statements on `db`; `onCount` gets each statement's affected row count (postgres.js `count`). */
function executorFor(db: DbOrTx, onCount?: (count: number) => void): PgBoss.Db {
  return {
    executeSql: async (text, values) => {
      const rows = await db.execute(toStatement(text, values ?? []));
      onCount?.((rows as { count?: number }).count ?? -1);
      return { rows: [...rows] };
    },
  };
}

/**
 * Enqueues through `db`, so inside a transaction the job commits or rolls back with the caller's
 * rows. Starts this process's pg-boss first; workers are woken once the caller's transaction could
 * commit.
 */
export async function enqueueJob<T extends object>(db: DbOrTx, queue: QueueDefinition<T>, data: T): Promise<string> {
  const boss = await getBoss();
  await ensureQueues(boss);
  const id = await boss.send(queue.name, data, { ...queue.sendOptions(), db: executorFor(db) });
  if (!id) throw new Error(`job queue '${queue.name}' refused the job`);
  setImmediate(wakeJobWorkers);
  return id;
}

/**
 * One job per element of `data` in ONE statement through `db`, for callers writing many rows in one
 * transaction; the queue's send options apply to each job.
 * @throws when the statement stored fewer jobs than asked (pg-boss's insert skips rather than
 * fails).
 */
export async function enqueueJobs<T extends object>(db: DbOrTx, queue: QueueDefinition<T>, data: T[]): Promise<void> {
  if (data.length === 0) return;
  const boss = await getBoss();
  await ensureQueues(boss);
  const {
    retryLimit,
    retryDelay,
    retryBackoff,
    expireInSeconds,
    deadLetter,
    priority,
    singletonKey,
    singletonSeconds,
    ...rest
  } = queue.sendOptions();
  if (Object.keys(rest).length > 0)
    throw new Error(
      `job queue '${queue.name}': send options ${Object.keys(rest).join(", ")} not supported by enqueueJobs`,
    );
  const common = {
    retryLimit,
    retryDelay,
    retryBackoff,
    expireInSeconds,
    deadLetter,
    priority,
    singletonKey,
    singletonSeconds,
  };
  let stored = -1;
  await boss.insert(
    data.map((d) => ({ ...common, name: queue.name, data: d })),
    { db: executorFor(db, (count) => (stored = count)) },
  );
  if (stored !== data.length) throw new Error(`job queue '${queue.name}' stored ${stored} of ${data.length} jobs`);
  setImmediate(wakeJobWorkers);
}

/** Starts pg-boss and creates the queues ahead of a transaction that will enqueue, keeping that work out of it. */
export async function prepareJobs(): Promise<void> {
  await ensureQueues(await getBoss());
}
