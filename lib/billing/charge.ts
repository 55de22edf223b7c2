import "server-only";
import { sql } from "@/db/sql";
import type { LedgerEntry } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import type { EntryInput } from "./entries";
import { firstEntry, insertEntrySql, insufficientBalance } from "./internal";

/**
 * Debits `costMicro` and writes its ledger row in one statement. The WHERE clause only lets the
 * debit through when the unreserved balance covers it, and row locking serialises concurrent
 * debits, so the balance cannot go below zero whatever the concurrency.
 * @throws insufficient_balance (402): nothing is written.
 */
export async function charge(
  db: DbOrTx,
  args: { companyId: string; costMicro: number; entry: EntryInput },
): Promise<LedgerEntry> {
  const cost = Math.max(0, Math.round(args.costMicro));
  const row = await firstEntry(
    db,
    sql`WITH c AS (
          UPDATE companies SET balance_micro = balance_micro - ${cost}
          WHERE id = ${args.companyId} AND balance_micro - reserved_micro >= ${cost}
          RETURNING id, balance_micro)
        ${insertEntrySql("c", -cost, args.entry)}`,
  );
  if (!row) throw insufficientBalance(cost);
  return row;
}
