import "server-only";
import { LEDGER_KIND } from "@/db/enums";
import type { DbOrTx } from "@/db/types";
import { billWithHold } from "@/lib/billing/bill-with-hold";
import type { CreditHold } from "@/lib/billing/lease";
import { log } from "@/lib/log";
import { countEmbeddingBill } from "@/lib/observability/metrics/record";

/** The ledger `source` of every embedding call, knowledge's and POST /v1/embeddings' (kind `usage`). */
export const EMBEDDINGS_SOURCE = "embeddings";

export interface EmbeddingBill {
  companyId: string;
  hold: CreditHold;
  /** EMBEDDING_MODEL as configured (`openai:text-embedding-3-small`). */
  model: string;
  tokens: number;
  costMicro: number;
  /** Known in advance when a repeat of the same bill must find it (idempotent); else minted. */
  entryId?: string;
  referenceId: string;
  metadata: Record<string, unknown>;
}

/**
 * Bills one embedding call as a `usage` entry from its hold, never below zero. Needs a transaction;
 * returns what it drew from the hold's lease, for endHold once that commits.
 */
export async function billEmbedding(tx: DbOrTx, bill: EmbeddingBill): Promise<number> {
  const r = await billWithHold(tx, {
    companyId: bill.companyId,
    lease: bill.hold.lease,
    holdMicro: bill.hold.amountMicro,
    costMicro: bill.costMicro,
    entry: {
      ...(bill.entryId ? { id: bill.entryId } : {}),
      kind: LEDGER_KIND.usage,
      source: EMBEDDINGS_SOURCE,
      model: bill.model,
      promptTokens: bill.tokens,
      completionTokens: 0,
      referenceId: bill.referenceId,
      metadata: bill.metadata,
    },
  });
  if (r.entry) countEmbeddingBill(bill.model, bill.tokens, -r.entry.amountMicro);
  const unbilled = r.entry?.metadata.cost_micro_unbilled;
  if (unbilled)
    log.warn(
      { companyId: bill.companyId, model: bill.model, tokens: bill.tokens, unbilledMicro: unbilled },
      "embedding cost more than the balance left",
    );
  return r.drawnMicro;
}
