import "server-only";
import type { DbOrTx } from "@/db/types";
import { endHold } from "@/lib/billing/lease";
import { countTextTokens } from "@/lib/providers/tokens";
import type { SearchArgs } from "./contracts";
import { billEmbedding } from "./embed/bill-embedding";
import { embeddingCostMicro, holdEmbedding } from "./embed/hold-embedding";
import type { Embedder } from "./embeddings";

/**
 * The search query's vector. A billed embedder's call is held first (402 before any provider call
 * when the company cannot pay), then paid: through `args.payQuery` (a run's own bill), else as a
 * `usage` entry of its own, drawn from that hold.
 * @throws AppError insufficient_balance (402).
 */
export async function embedQuery(db: DbOrTx, args: SearchArgs, emb: Embedder): Promise<Float32Array> {
  const price = emb.microPerM;
  if (price === null) return (await emb.embed([args.query], args.signal)).vectors[0]!;
  const counted = countTextTokens(args.query);
  const hold = await holdEmbedding(args.companyId, price, counted);
  let drawn = 0;
  try {
    const { vectors, tokens: reported } = await emb.embed([args.query], args.signal);
    const tokens = reported ?? counted;
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
