import "server-only";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db/types";

/**
 * Releases holds whose owner must have crashed (past `expires_at`). Safe to run from every
 * process at once: each hold flips from `held` exactly once. Returns how many were released.
 */
export async function reconcileReservations(db: DbOrTx): Promise<number> {
  const rows = (await db.execute(sql`
    WITH r AS (
      UPDATE reservations SET status = 'released'
      WHERE status = 'held' AND expires_at < now()
      RETURNING company_id, amount_micro),
    s AS (SELECT company_id, sum(amount_micro) AS total, count(*) AS n FROM r GROUP BY company_id)
    UPDATE companies co SET reserved_micro = co.reserved_micro - s.total
    FROM s WHERE co.id = s.company_id
    RETURNING s.n`)) as unknown as { n: string }[];
  return rows.reduce((sum, r) => sum + Number(r.n), 0);
}
