import "server-only";
import { db } from "@/db/client";
import type { Tx } from "@/db/types";
import { log } from "@/lib/log";

/**
 * Group transactions: small independent items of work (accepted webhook events and their jobs)
 * submitted while a transaction is in flight share the next one, so under load many callers pay
 * for one BEGIN/COMMIT pair and one WAL flush instead of one each, and the batch function writes
 * all of them with a few multi-row statements. At low load an item runs at once in its own
 * transaction (no timer, no added latency). Every caller resolves only after the COMMIT that holds
 * its work, so nothing is acknowledged before it is durable.
 *
 * If a batch fails, its transaction is rolled back and each item runs again alone, so one bad
 * item cannot fail its neighbours. Unlike lib/persistence/group-commit.ts (one statement per
 * caller, credit-lease rows locked, one batch at a time), these batches lock no shared rows, so
 * two may be in flight at once (the batch function must take any row locks in a stable order,
 * e.g. unique keys sorted, so that two batches cannot deadlock).
 */
const MAX_IN_FLIGHT = 2;
const MAX_BATCH = 64;

interface Pending<I, R> {
  item: I;
  resolve: (value: R) => void;
  reject: (err: unknown) => void;
}

/**
 * A submit function for items written by `writeBatch(tx, items)`, which must resolve with one
 * result per item, in order. `submit(item)` resolves with the item's result after the COMMIT.
 */
export function groupTransaction<I, R>(
  name: string,
  writeBatch: (tx: Tx, items: I[]) => Promise<R[]>,
): (item: I) => Promise<R> {
  const queue: Pending<I, R>[] = [];
  let inFlight = 0;

  const alone = (p: Pending<I, R>) =>
    db.transaction((tx) => writeBatch(tx, [p.item])).then((r) => p.resolve(r[0]!), p.reject);

  async function runBatch(batch: Pending<I, R>[]): Promise<void> {
    if (batch.length === 1) return alone(batch[0]!);
    let results: R[];
    try {
      results = await db.transaction((tx) =>
        writeBatch(
          tx,
          batch.map((p) => p.item),
        ),
      );
    } catch (err) {
      // Rolled back whole: each item again, in its own transaction (a failing one reports its own error).
      log.warn({ err, group: name, size: batch.length }, "group transaction failed; running its items one by one");
      await Promise.all(batch.map(alone));
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i]!));
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

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      pump();
    });
}
