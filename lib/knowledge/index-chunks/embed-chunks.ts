import "server-only";
import { createHash } from "node:crypto";
import { sql } from "@/db/sql";
import type { DbOrTx } from "@/db/types";
import { endHold, type CreditHold } from "@/lib/billing/lease";
import { AppError } from "@/lib/errors";
import { microToOt } from "@/lib/billing/money";
import { IndexingError, type ChunkInput } from "../contracts";
import type { Embedder } from "../embeddings";
import { billEmbedding } from "../embed/bill-embedding";
import { embeddingCostMicro, holdEmbedding } from "../embed/hold-embedding";

export interface ChunkVectors {
  /** One per chunk, in order. */
  vectors: Float32Array[];
  /** Bills the embedding call; run it in the transaction that stores the chunks, so both commit or neither. */
  bill(tx: DbOrTx): Promise<void>;
  /** Ends the credit hold once that transaction settled. */
  end(committed: boolean): void;
}

const nothingToBill: Pick<ChunkVectors, "bill" | "end"> = { bill: async () => undefined, end: () => undefined };

function bytesToVector(b: Buffer): Float32Array {
  const v = new Float32Array(b.length / 4);
  for (let i = 0; i < v.length; i++) v[i] = b.readFloatLE(i * 4);
  return v;
}

/** Vectors this model already stored for the document, by position, with the text they embed. */
async function storedVectors(db: DbOrTx, args: { companyId: string; documentId: string; model: string }) {
  const rows = (await db.execute(sql`SELECT position, text, embedding FROM knowledge_chunks
    WHERE company_id = ${args.companyId} AND document_id = ${args.documentId} AND embedding_model = ${args.model}`)) as unknown as {
    position: number;
    text: string;
    embedding: Buffer;
  }[];
  return new Map(rows.map((r) => [r.position, r]));
}

/** The bill's ledger id, derived from document, model and texts, so a second bill of them is found and skipped. */
function entryIdFor(documentId: string, model: string, chunks: ChunkInput[]): string {
  const h = createHash("sha256").update(`${documentId}\0${model}`);
  for (const c of chunks) h.update(`\0${c.position}\0${c.text}`);
  return `le_${h.digest("hex").slice(0, 32)}`;
}

const embedFailed = (emb: Embedder, err: unknown) =>
  new IndexingError("embed", `the embedding model ${emb.model} failed: ${(err as Error).message}`, { cause: err });

/**
 * The chunks' vectors. A billed embedder embeds only chunks not stored yet, under a hold, and bills
 * them as one `usage` entry whose id derives from those chunks, so a job run twice at once bills
 * once.
 * @throws IndexingError (stage embed) when the company cannot pay or the provider fails.
 */
export async function embedChunks(
  db: DbOrTx,
  args: { companyId: string; collectionId: string; documentId: string; chunks: ChunkInput[]; signal?: AbortSignal },
  emb: Embedder,
): Promise<ChunkVectors> {
  const price = emb.microPerM;
  if (price === null) {
    try {
      return {
        vectors: (
          await emb.embed(
            args.chunks.map((c) => c.text),
            args.signal,
          )
        ).vectors,
        ...nothingToBill,
      };
    } catch (err) {
      throw embedFailed(emb, err);
    }
  }
  const stored = await storedVectors(db, { ...args, model: emb.model });
  const fresh = args.chunks.filter((c) => stored.get(c.position)?.text !== c.text);
  const vectors = args.chunks.map((c) =>
    stored.get(c.position)?.text === c.text ? bytesToVector(stored.get(c.position)!.embedding) : null,
  );
  if (fresh.length === 0) return { vectors: vectors as Float32Array[], ...nothingToBill };
  const counted = fresh.reduce((n, c) => n + c.tokens, 0);
  let hold: CreditHold;
  try {
    hold = await holdEmbedding(args.companyId, price, counted);
  } catch (err) {
    if (!(err instanceof AppError && err.code === "insufficient_balance")) throw err;
    throw new IndexingError(
      "embed",
      `insufficient balance for embeddings: ${fresh.length} chunks need up to ${microToOt(embeddingCostMicro(price, counted))} O₮; add credits, then retry the document`,
      { cause: err },
    );
  }
  let embedded;
  try {
    embedded = await emb.embed(
      fresh.map((c) => c.text),
      args.signal,
    );
  } catch (err) {
    endHold(hold, 0);
    throw embedFailed(emb, err);
  }
  let i = 0;
  for (let j = 0; j < vectors.length; j++) if (!vectors[j]) vectors[j] = embedded.vectors[i++]!;
  const tokens = embedded.tokens ?? counted;
  let drawn = 0;
  return {
    vectors: vectors as Float32Array[],
    async bill(tx) {
      drawn = await billEmbedding(tx, {
        companyId: args.companyId,
        hold,
        model: emb.model,
        tokens,
        costMicro: embeddingCostMicro(price, tokens),
        entryId: entryIdFor(args.documentId, emb.model, fresh),
        referenceId: args.documentId,
        metadata: {
          purpose: "indexing",
          document_id: args.documentId,
          collection_id: args.collectionId,
          chunks: fresh.length,
        },
      });
    },
    end: (committed) => endHold(hold, committed ? drawn : 0),
  };
}
