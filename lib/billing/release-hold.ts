import "server-only";
import { sql } from "@/db/sql";
import type { Reservation } from "@/db/schema";
import type { DbOrTx } from "@/db/types";

/** Gives a hold back without charging. No ledger row: the balance did not change. Returns false when it was no longer held. */
export async function releaseReservation(
  db: DbOrTx,
  reservation: Pick<Reservation, "id" | "companyId">,
): Promise<boolean> {
  const rows = (await db.execute(sql`
    WITH r AS (
      UPDATE reservations SET status = 'released'
      WHERE id = ${reservation.id} AND company_id = ${reservation.companyId} AND status = 'held'
      RETURNING company_id, amount_micro)
    UPDATE companies co SET reserved_micro = co.reserved_micro - r.amount_micro
    FROM r WHERE co.id = r.company_id
    RETURNING co.id`)) as unknown as unknown[];
  return rows.length > 0;
}
