import "server-only";
import { sql } from "drizzle-orm";
import type { LedgerEntry, Reservation } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { notFound } from "@/lib/errors";
import type { EntryInput } from "./entries";
import { firstEntry, insertEntrySql } from "./internal";

/**
 * Ends a reservation: debits the actual cost, releases the rest of the hold, writes one ledger row.
 *
 * Fast path (cost within the hold, the normal case): one statement. It cannot fail for lack of
 * funds, because other callers can only spend the unreserved balance, so our hold is still there.
 *
 * Slow path (cost above the hold, or the reconciler already released it after a presumed crash):
 * under row locks, charge what the balance can cover (never below zero) and note the shortfall in
 * the entry's metadata. Settling twice is a no-op that returns null.
 */
export async function settle(
  db: DbOrTx,
  args: { reservation: Pick<Reservation, "id" | "companyId" | "amountMicro">; costMicro: number; entry: EntryInput },
): Promise<LedgerEntry | null> {
  const cost = Math.max(0, Math.round(args.costMicro));
  const { reservation } = args;
  if (cost <= reservation.amountMicro) {
    const row = await firstEntry(
      db,
      sql`WITH ${settleHoldCtes(reservation, cost)} ${insertEntrySql("c", -cost, args.entry)}`,
    );
    if (row) return row;
  }
  return settleLocked(db, { ...args, costMicro: cost });
}

async function settleLocked(
  db: DbOrTx,
  args: { reservation: Pick<Reservation, "id" | "companyId">; costMicro: number; entry: EntryInput },
): Promise<LedgerEntry | null> {
  const { reservation, costMicro } = args;
  return db.transaction(async (tx) => {
    const [held] = (await tx.execute(sql`
      SELECT status, amount_micro FROM reservations
      WHERE id = ${reservation.id} AND company_id = ${reservation.companyId} FOR UPDATE`)) as unknown as {
      status: string;
      amount_micro: string;
    }[];
    if (!held) throw notFound("reservation");
    if (held.status === "settled") return null;
    const holdMicro = held.status === "held" ? Number(held.amount_micro) : 0;
    const [co] = (await tx.execute(sql`
      SELECT balance_micro, reserved_micro FROM companies WHERE id = ${reservation.companyId} FOR UPDATE`)) as unknown as {
      balance_micro: string;
      reserved_micro: string;
    }[];
    const available = Number(co!.balance_micro) - Number(co!.reserved_micro) + holdMicro;
    const charged = Math.min(costMicro, Math.max(0, available));
    await tx.execute(sql`UPDATE reservations SET status = 'settled' WHERE id = ${reservation.id}`);
    const metadata =
      charged < costMicro
        ? { ...args.entry.metadata, cost_micro_requested: costMicro, cost_micro_unbilled: costMicro - charged }
        : args.entry.metadata;
    return firstEntry(
      tx,
      sql`WITH c AS (
            UPDATE companies SET reserved_micro = reserved_micro - ${holdMicro}, balance_micro = balance_micro - ${charged}
            WHERE id = ${reservation.companyId}
            RETURNING id, balance_micro)
          ${insertEntrySql("c", -charged, { ...args.entry, metadata })}`,
    );
  });
}

/** Gives a hold back without charging (the call never reached the provider). No ledger row: the balance did not change. */
export async function releaseReservation(
  db: DbOrTx,
  reservation: Pick<Reservation, "id" | "companyId">,
): Promise<boolean> {
  const rows = (await db.execute(sql`WITH ${releaseHoldSql(reservation)}`)) as unknown as unknown[];
  return rows.length > 0;
}

/**
 * CTEs `r` and `c` that settle a held reservation at `cost` (within the hold); `c` holds the new
 * balance for insertEntrySql("c", …). Shared by settle() and the one-statement run persistence.
 */
function settleHoldCtes(reservation: Pick<Reservation, "id" | "companyId">, cost: number) {
  return sql`r AS (
      UPDATE reservations SET status = 'settled'
      WHERE id = ${reservation.id} AND company_id = ${reservation.companyId} AND status = 'held'
      RETURNING company_id, amount_micro),
    c AS (
      UPDATE companies co
      SET reserved_micro = co.reserved_micro - r.amount_micro, balance_micro = co.balance_micro - ${cost}
      FROM r WHERE co.id = r.company_id
      RETURNING co.id, co.balance_micro)`;
}

/** A CTE plus final UPDATE that give a hold back (no ledger row: the balance did not change). */
function releaseHoldSql(reservation: Pick<Reservation, "id" | "companyId">) {
  return sql`r AS (
      UPDATE reservations SET status = 'released'
      WHERE id = ${reservation.id} AND company_id = ${reservation.companyId} AND status = 'held'
      RETURNING company_id, amount_micro)
    UPDATE companies co SET reserved_micro = co.reserved_micro - r.amount_micro
    FROM r WHERE co.id = r.company_id
    RETURNING co.id`;
}
