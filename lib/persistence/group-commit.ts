import "server-only";
import type { SQL } from "drizzle-orm";
import { db, sql } from "@/db/client";
import { runSql } from "@/db/render-sql";
import type { Tx } from "@/db/types";
import { log } from "@/lib/log";
import { openTransaction, type OpenTransaction } from "./open-transaction";

/**
 * Group commit: statements submitted while a commit is in flight share the next transaction, so
 * under load many requests pay for one COMMIT (one WAL flush) instead of one each, and at low load
 * a statement goes out at once (no timer, no added latency). Every caller still awaits the commit
 * that holds its statement, so nothing is acknowledged before it is durable.
 *
 * A batch of one is sent alone: a single statement is atomic by itself and commits on its own,
 * which saves the BEGIN and COMMIT round trips (the common case at low load). A larger batch is
 * pipelined on one transaction's connection, its COMMIT right behind it. Under load the next
 * batch's transaction begins while the previous batch commits (lib/persistence/open-transaction.ts),
 * so a batch costs one round trip where its statements wait. If a batch fails, each statement is
 * retried alone so one bad statement cannot fail its neighbours.
 */
interface Pending {
  statement: SQL;
  resolve: (rows: unknown[]) => void;
  reject: (err: unknown) => void;
}

interface Exclusive {
  work: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * One commit in flight per process; the next batch gathers meanwhile. More would deadlock: run
 * statements draw from this process's shared credit leases, so two concurrent batches can each
 * hold one lease row and the company row the other one needs. One at a time, a process's
 * statements never wait on each other, and other processes hold other leases.
 */
const MAX_IN_FLIGHT = 1;
const MAX_BATCH = 64;

const queue: (Pending | Exclusive)[] = [];
const isExclusive = (p: Pending | Exclusive): p is Exclusive => "work" in p;
let inFlight = 0;
/** The next batch's transaction, begun while the batch in flight commits. */
let next: OpenTransaction | undefined;

const alone = async (p: Pending) => p.resolve(await runSql(sql, p.statement));

async function runBatch(batch: Pending[]): Promise<void> {
  const begun = next;
  next = undefined;
  if (batch.length === 1 && !begun) {
    await alone(batch[0]!).catch(batch[0]!.reject);
    return;
  }
  try {
    const results = await (begun ?? openTransaction()).commit(batch.map((p) => p.statement));
    batch.forEach((p, i) => p.resolve(results[i]!));
  } catch (err) {
    log.warn({ err, size: batch.length }, "group commit failed; retrying its statements one by one");
    for (const p of batch) await alone(p).catch(p.reject);
  }
}

function pump(): void {
  while (inFlight < MAX_IN_FLIGHT && queue.length > 0) {
    let job: Promise<void>;
    if (isExclusive(queue[0]!)) {
      const x = queue.shift() as Exclusive;
      job = db.transaction((tx) => x.work(tx)).then(x.resolve, x.reject);
    } else {
      const end = queue.findIndex(isExclusive);
      job = runBatch(queue.splice(0, Math.min(MAX_BATCH, end < 0 ? queue.length : end)) as Pending[]);
    }
    inFlight++;
    void job.finally(() => {
      inFlight--;
      pump();
    });
  }
  beginNextBatch();
}

/**
 * Statements wait behind the commit in flight: their transaction begins now. It is always used:
 * they stay at the queue's head until the next pump, which hands them to runBatch.
 */
function beginNextBatch(): void {
  if (inFlight >= MAX_IN_FLIGHT && queue.length > 0 && !isExclusive(queue[0]!)) next ??= openTransaction();
}

/**
 * Runs `work` in a transaction of its own, in this process's commit order: no batch of this
 * process runs beside it. For the rare multi-statement bill that locks a lease row and then the
 * company row (billWithHold): beside a batch that holds this process's other lease and the company
 * row, it could deadlock; other processes never touch this process's leases.
 */
export function commitExclusive<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
    pump();
  });
}

/**
 * Runs one self-contained statement (CTEs for several writes) durably; resolves with its rows
 * after the commit that holds it.
 */
export function commitWithGroup(statement: SQL): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    queue.push({ statement, resolve, reject });
    pump();
  });
}
