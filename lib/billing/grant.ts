import "server-only";
import { sql } from "@/db/sql";
import type { LedgerEntry } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError, notFound } from "@/lib/errors";
import type { EntryInput } from "./entries";
import { firstEntry, insertEntrySql } from "./internal";
import { MAX_GRANT_MICRO } from "./money";

/**
 * Credits a company (kind `grant`, or `adjustment` for corrections). Negative adjustments go
 * through charge() so they can never overdraw.
 * @throws not_found for an unknown company; invalid_request for a non-positive or absurd amount.
 */
export async function grantCredits(
  db: DbOrTx,
  args: { companyId: string; amountMicro: number; entry: Omit<EntryInput, "kind"> & { kind?: "grant" | "adjustment" } },
): Promise<LedgerEntry> {
  const amount = Math.round(args.amountMicro);
  if (!(amount > 0) || amount > MAX_GRANT_MICRO) {
    throw new AppError("invalid_request", "amount must be positive and at most 1,000,000,000 O₮", { param: "amount" });
  }
  const row = await firstEntry(
    db,
    sql`WITH c AS (
          UPDATE companies SET balance_micro = balance_micro + ${amount}
          WHERE id = ${args.companyId}
          RETURNING id, balance_micro)
        ${insertEntrySql("c", amount, { ...args.entry, kind: args.entry.kind ?? "grant" })}`,
  );
  if (!row) throw notFound("company");
  return row;
}
