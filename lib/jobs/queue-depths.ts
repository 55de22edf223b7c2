import "server-only";
import { sql } from "@/db/sql";
import { db } from "@/db/client";
import { JOBS_SCHEMA } from "./boss";
import { definedQueues } from "./queues";

export interface QueueDepth {
  queue: string;
  /** Created or due for retry, not yet taken by a worker. */
  waiting: number;
  active: number;
  /** Seconds since the oldest waiting job was created; 0 when none waits. */
  oldestWaitingS: number;
}

/**
 * The depth of every defined queue and its dead letter queue, read from pg-boss's job table in
 * one statement (for the metrics scrape; pg-boss's own counts take one query per queue).
 */
export async function queueDepths(): Promise<QueueDepth[]> {
  const names = definedQueues().flatMap((q) => (q.deadLetter ? [q.name, q.deadLetter.name] : [q.name]));
  if (names.length === 0) return [];
  // pg-boss makes its tables when it first starts: until then every queue is empty.
  const [table] = await db.execute<{ present: boolean }>(
    sql`SELECT to_regclass(${`${JOBS_SCHEMA}.job`}) IS NOT NULL AS present`,
  );
  if (!table?.present) return names.map((queue) => ({ queue, waiting: 0, active: 0, oldestWaitingS: 0 }));
  const list = sql.join(
    names.map((n) => sql`(${n})`),
    sql`, `,
  );
  const rows = await db.execute<{ name: string; waiting: number; active: number; oldest_s: number }>(sql`
    SELECT q.name,
      count(j.id) FILTER (WHERE j.state < 'active')::int AS waiting,
      count(j.id) FILTER (WHERE j.state = 'active')::int AS active,
      coalesce(extract(epoch FROM now() - min(j.created_on) FILTER (WHERE j.state < 'active')), 0)::float8 AS oldest_s
    FROM (VALUES ${list}) AS q(name)
    LEFT JOIN ${sql.identifier(JOBS_SCHEMA)}.job j ON j.name = q.name AND j.state <= 'active'
    GROUP BY q.name`);
  return rows.map((r) => ({ queue: r.name, waiting: r.waiting, active: r.active, oldestWaitingS: r.oldest_s }));
}
