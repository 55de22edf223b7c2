import { LEDGER_KINDS, type LedgerKind } from "@/db/enums";
import type { LedgerEntry } from "@/db/schema";

/** What a caller says about a balance change; the amount and balance come from the ledger itself. */
export interface EntryInput {
  /** The entry's id when the caller needs it known in advance (a run's bill: idempotent retries); else minted. */
  id?: string;
  kind: LedgerKind;
  source: string;
  model?: string | null;
  promptTokens?: number | null;
  completionTokens?: number | null;
  referenceId?: string | null;
  /**
   * The server's own fields only (a shortfall note is added after them). Anything a client sent goes
   * under one key of its own (`caller_metadata`), never spread in beside these.
   */
  metadata?: Record<string, unknown>;
}

type Raw = Record<string, unknown>;

/** Rows of raw `RETURNING *` statements (snake_case, int8 as string) → the drizzle row type. */
export function rowToLedgerEntry(r: Raw): LedgerEntry {
  const kind = r.kind as LedgerKind;
  if (!LEDGER_KINDS.includes(kind)) throw new Error(`unexpected ledger kind ${String(r.kind)}`);
  return {
    id: r.id as string,
    companyId: r.company_id as string,
    kind,
    source: r.source as string,
    amountMicro: Number(r.amount_micro),
    balanceAfterMicro: Number(r.balance_after_micro),
    model: (r.model as string | null) ?? null,
    promptTokens: r.prompt_tokens == null ? null : Number(r.prompt_tokens),
    completionTokens: r.completion_tokens == null ? null : Number(r.completion_tokens),
    referenceId: (r.reference_id as string | null) ?? null,
    metadata: (r.metadata as Record<string, unknown>) ?? {},
    createdAt: r.created_at instanceof Date ? r.created_at : new Date(r.created_at as string),
  };
}
