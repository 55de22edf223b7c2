import "server-only";
import { sql } from "@/db/sql";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { toStorableJson } from "@/lib/persistence/pg-text";
import { rowToLedgerEntry, type EntryInput } from "./entries";
import { microToOt } from "./money";

export const insufficientBalance = (neededMicro: number) =>
  new AppError(
    "insufficient_balance",
    `Insufficient O₮ balance: this call needs up to ${microToOt(neededMicro)} O₮. Add credits in the panel.`,
    { wireCode: "insufficient_balance" },
  );

/**
 * The ledger-row INSERT that ends every balance-changing statement. `from` is the CTE holding the
 * company's new balance as `balance_micro`; `amount` is the signed change (negative for debits).
 * `returning: "id"` when the caller only needs to know the row exists (parsing whole rows costs
 * CPU on every call).
 */
export function insertEntrySql(
  from: string,
  amountMicro: ReturnType<typeof sql> | number,
  entry: EntryInput,
  returning: "*" | "id" = "*",
) {
  return sql`
    INSERT INTO ledger_entries (id, company_id, kind, source, amount_micro, balance_after_micro, model,
                                prompt_tokens, completion_tokens, reference_id, metadata)
    SELECT ${entry.id ?? newId("ledger")}, c.id, ${entry.kind}::ledger_kind, ${entry.source}, ${amountMicro}, c.balance_micro,
           ${entry.model ?? null}, ${entry.promptTokens ?? null}::int, ${entry.completionTokens ?? null}::int,
           ${entry.referenceId ?? null}, ${toStorableJson(entry.metadata ?? {})}::jsonb
    FROM ${sql.raw(from)} c
    RETURNING ${sql.raw(returning)}`;
}

export async function firstEntry(db: DbOrTx, query: ReturnType<typeof sql>) {
  const rows = (await db.execute(query)) as unknown as Record<string, unknown>[];
  return rows[0] ? rowToLedgerEntry(rows[0]) : null;
}
