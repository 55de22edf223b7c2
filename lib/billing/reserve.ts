import "server-only";
import { sql } from "drizzle-orm";
import type { Reservation } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { newId } from "@/lib/ids";
import { insufficientBalance } from "./internal";

/** Longer than any call may run; after that the reconciler assumes the holder crashed. */
const RESERVATION_TTL_S = 15 * 60;

/**
 * Holds `amountMicro` of the company's unreserved balance for a call in flight (the worst case,
 * e.g. input tokens plus the output cap). One statement: the hold and its row appear together.
 * @throws insufficient_balance (402) when the unreserved balance cannot cover it.
 */
export async function reserve(
  db: DbOrTx,
  args: { companyId: string; amountMicro: number; referenceId?: string | null; ttlS?: number },
): Promise<Reservation> {
  const amount = Math.max(0, Math.round(args.amountMicro));
  const rows = (await db.execute(sql`
    WITH c AS (
      UPDATE companies SET reserved_micro = reserved_micro + ${amount}
      WHERE id = ${args.companyId} AND balance_micro - reserved_micro >= ${amount}
      RETURNING id)
    INSERT INTO reservations (id, company_id, amount_micro, reference_id, expires_at)
    SELECT ${newId("reservation")}, c.id, ${amount}, ${args.referenceId ?? null},
           now() + make_interval(secs => ${args.ttlS ?? RESERVATION_TTL_S})
    FROM c
    RETURNING *`)) as unknown as Record<string, unknown>[];
  const r = rows[0];
  if (!r) throw insufficientBalance(amount);
  return {
    id: r.id as string,
    companyId: r.company_id as string,
    amountMicro: Number(r.amount_micro),
    status: "held",
    referenceId: (r.reference_id as string | null) ?? null,
    // No owner: only its expiry frees it after a crash (credit leases name theirs: lease-owner.ts).
    owner: null,
    expiresAt: new Date(r.expires_at as string),
    createdAt: new Date(r.created_at as string),
  };
}
