import "server-only";
import { sql } from "@/db/sql";
import type { LedgerEntry } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import type { EntryInput } from "./entries";
import { firstEntry, insertEntrySql } from "./internal";
import { expiryAfterDraw } from "./lease";

/**
 * Bills a call whose cost the one-statement draw could not take from its lease: it cost more than
 * its hold (a provider that ignored the output cap, or counted the prompt higher than we did), or
 * the lease is gone (the reconciler released it after a presumed crash). Pays the cost from the
 * call's own hold first (up to `holdMicro`, from the lease row if it is still held), then from the
 * unreserved balance, never below zero; a shortfall is noted in the entry's metadata
 * (`cost_micro_requested`, `cost_micro_unbilled`). One ledger row either way.
 *
 * Must run in a transaction. Locks the lease row, then the company row: the order of every other
 * writer of both (the run's draw, release, the reconciler), so it cannot deadlock with them. The
 * locks are FOR NO KEY UPDATE: FOR UPDATE would also conflict with the KEY SHARE locks that other
 * tables' foreign keys take on the company row (a webhook event, an API key being written).
 * Returns the entry and how much was drawn from the lease (for endHold). With `entry.id` set it is
 * idempotent: a second call for the same id bills nothing (`alreadyBilled`).
 */
export async function billWithHold(
  tx: DbOrTx,
  args: { companyId: string; lease: { id: string } | null; holdMicro: number; costMicro: number; entry: EntryInput },
): Promise<{ entry: LedgerEntry | null; drawnMicro: number; alreadyBilled?: boolean }> {
  const cost = Math.max(0, Math.round(args.costMicro));
  let leaseLeft = 0;
  if (args.lease) {
    const [held] = (await tx.execute(sql`
      SELECT amount_micro FROM reservations
      WHERE id = ${args.lease.id} AND company_id = ${args.companyId} AND status = 'held' FOR NO KEY UPDATE`)) as unknown as {
      amount_micro: string;
    }[];
    leaseLeft = held ? Number(held.amount_micro) : 0;
  }
  const [co] = (await tx.execute(sql`
    SELECT balance_micro - reserved_micro AS unreserved FROM companies WHERE id = ${args.companyId} FOR NO KEY UPDATE`)) as unknown as {
    unreserved: string;
  }[];
  if (!co) return { entry: null, drawnMicro: 0 };
  // A retry of a bill whose commit was not acknowledged: its entry (known id) is already there.
  // Checked under the company row lock, so a concurrent attempt of the same bill sees it committed.
  if (args.entry.id) {
    const [existing] = (await tx.execute(
      sql`SELECT 1 FROM ledger_entries WHERE id = ${args.entry.id}`,
    )) as unknown as unknown[];
    if (existing) return { entry: null, drawnMicro: 0, alreadyBilled: true };
  }
  const drawn = Math.min(cost, Math.max(0, args.holdMicro), leaseLeft);
  const extra = Math.min(cost - drawn, Math.max(0, Number(co.unreserved)));
  const charged = drawn + extra;
  if (drawn > 0) {
    await tx.execute(sql`
      UPDATE reservations SET amount_micro = amount_micro - ${drawn}, expires_at = ${expiryAfterDraw}
      WHERE id = ${args.lease!.id}`);
  }
  const metadata =
    charged < cost
      ? { ...args.entry.metadata, cost_micro_requested: cost, cost_micro_unbilled: cost - charged }
      : args.entry.metadata;
  const entry = await firstEntry(
    tx,
    sql`WITH c AS (
          UPDATE companies SET reserved_micro = reserved_micro - ${drawn}, balance_micro = balance_micro - ${charged}
          WHERE id = ${args.companyId}
          RETURNING id, balance_micro)
        ${insertEntrySql("c", -charged, { ...args.entry, metadata })}`,
  );
  return { entry, drawnMicro: drawn };
}
