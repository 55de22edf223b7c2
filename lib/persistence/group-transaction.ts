import "server-only";
import { db } from "@/db/client";
import type { Tx } from "@/db/types";
import { log } from "@/lib/log";

/**
 * Group transactions: small independent units of work (an accepted webhook event and its job)
 * submitted while a transaction is in flight share the next one, so under load many callers pay
 * for one BEGIN/COMMIT pair and one WAL flush instead of one each, and their statements are
 * pipelined on one connection. At low load a unit runs at once in its own transaction (no timer,
 * no added latency). Every caller resolves only after the COMMIT that holds its work, so nothing
 * is acknowledged before it is durable.
 *
 * Units of one batch run concurrently in the same transaction: they must not depend on each
 * other's order (two units inserting the same unique key are fine: the second sees the first's row,
 * as it would after its commit). If any unit fails, the transaction is rolled back and each unit
 * runs again alone, so one bad unit cannot fail its neighbours. Unlike lib/persistence/group-commit.ts
 * (one statement per caller, credit-lease rows locked, one batch at a time), these units lock no
 * shared rows, so two batches may be in flight at once.
 */
interface Pending {
  work: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

const MAX_IN_FLIGHT = 2;
const MAX_BATCH = 64;
const queue: Pending[] = [];
let inFlight = 0;

class UnitFailed extends Error {}

const alone = (p: Pending) => db.transaction((tx) => p.work(tx)).then(p.resolve, p.reject);

async function runBatch(batch: Pending[]): Promise<void> {
  if (batch.length === 1) return alone(batch[0]!);
  let results: unknown[];
  try {
    results = await db.transaction(async (tx) => {
      const settled = await Promise.allSettled(batch.map((p) => p.work(tx)));
      if (settled.some((s) => s.status === "rejected")) throw new UnitFailed();
      return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
    });
  } catch (err) {
    // Rolled back whole: each unit again, in its own transaction (a failing one reports its own error).
    log.warn({ err, size: batch.length }, "group transaction failed; running its units one by one");
    await Promise.all(batch.map(alone));
    return;
  }
  batch.forEach((p, i) => p.resolve(results[i]));
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

/** Runs `work` in a transaction shared with other callers' (see above); resolves after its COMMIT. */
export function inGroupTransaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    queue.push({ work, resolve: resolve as (v: unknown) => void, reject });
    pump();
  });
}
