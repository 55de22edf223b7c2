import "server-only";
import type { DbOrTx } from "@/db/types";
import { endHold, holdCredit } from "@/lib/billing/lease";
import { countTextTokens } from "@/lib/providers/tokens";
import type { SearchArgs } from "./contracts";
import { billEmbedding } from "./embed/bill-embedding";
import { embeddingCostMicro } from "./embed/hold-embedding";
import type { Embedder } from "./embeddings";

/** A provider that reports no usage is billed our count of a query up to this size, its byte length above. */
const COUNT_UP_TO_BYTES = 64 * 1024;

/**
 * The query's vector. A billed embedder's cost is held first (402 before any provider call), then
 * paid through `args.payQuery` or as its own `usage` entry.
 * @throws AppError insufficient_balance (402).
 */
export async function embedQuery(db: DbOrTx, args: SearchArgs, emb: Embedder): Promise<Float32Array> {
  const price = emb.microPerM;
  if (price === null) return (await emb.embed([args.query], args.signal)).vectors[0]!;
  // A run's query is its whole last message (megabytes at worst): the hold takes its byte length,
  // a bound on any byte-level tokenizer's count, so nothing is tokenized on the event loop first.
  const bytes = Buffer.byteLength(args.query, "utf8");
  const hold = await holdCredit(args.companyId, embeddingCostMicro(price, bytes));
  let drawn = 0;
  try {
    const { vectors, tokens: reported } = await emb.embed([args.query], args.signal);
    const tokens = reported ?? (bytes <= COUNT_UP_TO_BYTES ? countTextTokens(args.query) : bytes);
    const costMicro = embeddingCostMicro(price, tokens);
    if (args.payQuery) args.payQuery({ model: emb.model, tokens, costMicro });
    else {
      drawn = await db.transaction((tx) =>
        billEmbedding(tx, {
          companyId: args.companyId,
          hold,
          model: emb.model,
          tokens,
          costMicro,
          referenceId: args.collectionIds.join(","),
          metadata: { purpose: "search", collection_ids: args.collectionIds },
        }),
      );
    }
    return vectors[0]!;
  } finally {
    endHold(hold, drawn);
  }
}
