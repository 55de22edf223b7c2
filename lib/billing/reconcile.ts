import "server-only";
import type { SQL } from "drizzle-orm";
import { sql } from "@/db/sql";
import type { DbOrTx } from "@/db/types";
import { goneOwners } from "./lease-owner";

/**
 * Flips the held reservations matching `where` to released and takes their amounts off each
 * company's reserved_micro, in one statement. Safe to run from every process at once: each hold
 * flips from `held` exactly once. Returns how many were released.
 */
async function releaseHeld(db: DbOrTx, where: SQL): Promise<number> {
  const rows = (await db.execute(sql`
    WITH r AS (
      UPDATE reservations SET status = 'released'
      WHERE status = 'held' AND ${where}
      RETURNING company_id, amount_micro),
    s AS (SELECT company_id, sum(amount_micro) AS total, count(*) AS n FROM r GROUP BY company_id)
    UPDATE companies co SET reserved_micro = co.reserved_micro - s.total
    FROM s WHERE co.id = s.company_id
    RETURNING s.n`)) as unknown as { n: string }[];
  return rows.reduce((sum, r) => sum + Number(r.n), 0);
}

/** Releases holds whose owner must have crashed (past `expires_at`). Idempotent; returns how many were released. */
export async function reconcileReservations(db: DbOrTx): Promise<number> {
  return releaseHeld(db, sql`expires_at < now()`);
}

/**
 * Releases the held leases of every owner this process can tell is gone (lib/billing/lease-owner.ts:
 * a dead pid on this host, or the server this one replaces on its address and port), at once
 * rather than when they expire. Never releases a lease of a process that may be alive. Idempotent;
 * returns how many were released.
 */
export async function releaseLeasesOfGoneOwners(db: DbOrTx): Promise<number> {
  const owners = (await db.execute(sql`
    SELECT DISTINCT owner FROM reservations WHERE status = 'held' AND owner IS NOT NULL`)) as unknown as {
    owner: string;
  }[];
  const gone = goneOwners(owners.map((r) => r.owner));
  if (gone.length === 0) return 0;
  return releaseHeld(
    db,
    sql`owner IN (${sql.join(
      gone.map((o) => sql`${o}`),
      sql`, `,
    )})`,
  );
}
