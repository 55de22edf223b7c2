import "server-only";
import { db } from "@/db/client";
import type { Tx } from "@/db/types";
import { log } from "@/lib/log";

/**
 * Group commit: writes submitted while a commit is in flight share the next transaction, so under
 * load many requests pay for one COMMIT (one WAL flush) instead of one each, and at low load a
 * write goes out at once (no timer, no added latency). Every caller still awaits the commit that
 * holds its write, so nothing is acknowledged before it is durable.
 *
 * Statements of one batch are pipelined on the transaction's connection. If the batch fails, each
 * write is retried alone so one bad write cannot fail its neighbours.
 */
type Write<T> = (tx: Tx) => Promise<T>;
interface Pending {
  write: Write<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** Concurrent transactions per process: enough to keep the pool busy, few enough to batch. */
const MAX_IN_FLIGHT = 3;
const MAX_BATCH = 64;

const queue: Pending[] = [];
let inFlight = 0;

async function runBatch(batch: Pending[]): Promise<void> {
  try {
    const results = await db.transaction((tx) => Promise.all(batch.map((p) => p.write(tx))));
    batch.forEach((p, i) => p.resolve(results[i]));
  } catch (err) {
    if (batch.length === 1) return batch[0]!.reject(err);
    log.warn({ err, size: batch.length }, "group commit failed; retrying its writes one by one");
    for (const p of batch) {
      try {
        p.resolve(await db.transaction((tx) => p.write(tx)));
      } catch (e) {
        p.reject(e);
      }
    }
  }
}

function pump(): void {
  while (inFlight < MAX_IN_FLIGHT && queue.length > 0) {
    const batch = queue.splice(0, MAX_BATCH);
    inFlight++;
    void runBatch(batch).finally(() => {
      inFlight--;
      pump();
    });
  }
}

/** Runs `write` inside a shared transaction; resolves after that transaction committed. */
export function commitWithGroup<T>(write: Write<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    queue.push({ write, resolve: resolve as (v: unknown) => void, reject });
    pump();
  });
}
