import { db } from "@/db/client";
import type { Tx } from "@/db/types";

class Rollback extends Error {}

/** Runs `fn` in a transaction that is always rolled back: the test leaves no rows behind. */
export async function withRollback(fn: (tx: Tx) => Promise<void>): Promise<void> {
  try {
    await db.transaction(async (tx) => {
      await fn(tx);
      throw new Rollback();
    });
  } catch (err) {
    if (!(err instanceof Rollback)) throw err;
  }
}
