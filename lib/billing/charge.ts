import "server-only";
import { sql } from "drizzle-orm";
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
export async function charge(db: DbOrTx, args: { companyId: string; costMicro: number; entry: EntryInput }): Promise<LedgerEntry> {
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

/**
 * Debits what the unreserved balance can cover of `costMicro`, never below zero, and notes any
 * shortfall in the entry's metadata. For bills that arrive after the work was done and have no
 * hold left to draw from (a run whose hold the reconciler released, or that outgrew it).
 */
export async function chargeUpTo(db: DbOrTx, args: { companyId: string; costMicro: number; entry: EntryInput }): Promise<LedgerEntry | null> {
  const cost = Math.max(0, Math.round(args.costMicro));
  return db.transaction(async (tx) => {
    const [co] = (await tx.execute(sql`
      SELECT balance_micro, reserved_micro FROM companies WHERE id = ${args.companyId} FOR UPDATE`)) as unknown as {
      balance_micro: string;
      reserved_micro: string;
    }[];
    if (!co) return null;
    const charged = Math.min(cost, Math.max(0, Number(co.balance_micro) - Number(co.reserved_micro)));
    const metadata = charged < cost ? { ...args.entry.metadata, cost_micro_requested: cost, cost_micro_unbilled: cost - charged } : args.entry.metadata;
    return firstEntry(
      tx,
      sql`WITH c AS (
            UPDATE companies SET balance_micro = balance_micro - ${charged} WHERE id = ${args.companyId}
            RETURNING id, balance_micro)
          ${insertEntrySql("c", -charged, { ...args.entry, metadata })}`,
    );
  });
}
