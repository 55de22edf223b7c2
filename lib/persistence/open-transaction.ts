import "server-only";
import type { SQL } from "drizzle-orm";
import { sql } from "@/db/client";
import { runSql } from "@/db/render-sql";

/** A transaction begun ahead of its statements. */
export interface OpenTransaction {
  /** Runs the statements in it and commits: their rows, or the first statement's error. */
  commit(statements: SQL[]): Promise<unknown[][]>;
}

/**
 * Begins a transaction now and waits for its statements: the BEGIN round trip is paid while the
 * caller still waits for something else. Until its first statement it holds a connection, but no
 * lock and no snapshot, so it cannot block or be blocked by another transaction.
 *
 * The statements are started together and COMMIT is queued right behind them (the callback does
 * not await them), so they and the commit take one round trip. A statement that fails aborts the
 * transaction, and COMMIT then rolls it back without an error: the statements' own results say
 * whether it committed. A lost connection rejects begin(), and with it commit(); statements given to
 * a transaction already lost are never sent.
 */
export function openTransaction(): OpenTransaction {
  let give!: (statements: SQL[]) => void;
  const statementsGiven = new Promise<SQL[]>((resolve) => (give = resolve));
  let results: Promise<unknown[][]> = Promise.resolve([]);
  const committed = sql.begin(async (tx) => {
    const statements = await statementsGiven;
    // Started here, in order, so they reach the connection before the COMMIT queued after them.
    results = Promise.all(statements.map((s) => started(runSql(tx, s))));
    // Awaited after the commit; a rejection must not count as unhandled meanwhile.
    results.catch(() => {});
  });
  // Lost (its connection closed, which rejects begin() at once): a transaction whose statements
  // are not written. postgres.js would write them to the closed socket (porsager/postgres#1154).
  let lost = false;
  committed.catch(() => (lost = true));
  return {
    async commit(statements) {
      if (!lost) give(statements);
      await committed;
      return results;
    },
  };
}

/** A lazy query (postgres.js sends one when it is awaited) sent now. */
const started = <T>(query: PromiseLike<T>) => new Promise<T>((resolve, reject) => query.then(resolve, reject));
