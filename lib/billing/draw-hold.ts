import "server-only";
import type { SQL } from "drizzle-orm";
import { sql } from "@/db/sql";
import { expiryAfterDraw } from "./lease";

/**
 * CTEs `r` and `c` that draw `cost` from the call's lease and debit the balance by it; `c` holds
 * the new balance for insertEntrySql("c", …). No row comes back when the lease no longer has
 * `cost` left (released by the reconciler): billCall then bills with billWithHold.
 */
export function drawHoldCtes(lease: { id: string; companyId: string }, cost: number, when: SQL = sql`true`) {
  return sql`r AS (
      UPDATE reservations
      SET amount_micro = amount_micro - ${cost}, expires_at = ${expiryAfterDraw}
      WHERE id = ${lease.id} AND company_id = ${lease.companyId} AND status = 'held' AND amount_micro >= ${cost} AND ${when}
      RETURNING company_id),
    c AS (
      UPDATE companies co
      SET reserved_micro = co.reserved_micro - ${cost}, balance_micro = co.balance_micro - ${cost}
      FROM r WHERE co.id = r.company_id
      RETURNING co.id, co.balance_micro)`;
}
