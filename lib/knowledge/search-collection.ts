import "server-only";
import { sql } from "@/db/sql";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import type { RetrievedChunk } from "./contracts";
import { search } from "./search";
import type { SearchCollectionInput } from "./search-schemas";

/**
 * The search endpoint's verb: one active collection of the company, ranked as runs rank it.
 * @throws AppError not_found for an unknown, inactive or other company's collection.
 */
export async function searchCollection(
  db: DbOrTx,
  args: { companyId: string; collectionId: string; input: SearchCollectionInput; signal?: AbortSignal },
): Promise<RetrievedChunk[]> {
  // The collections table belongs to the knowledge API (lib/knowledge/collections); read by name
  // here so retrieval does not depend on its module.
  const rows = await db.execute(sql`SELECT id FROM knowledge_collections
    WHERE id = ${args.collectionId} AND company_id = ${args.companyId} AND is_active`);
  if (rows.length === 0) throw new AppError("not_found", `No knowledge collection ${args.collectionId}`);
  return search(db, {
    companyId: args.companyId,
    collectionIds: [args.collectionId],
    query: args.input.query,
    topK: args.input.top_k,
    signal: args.signal,
  });
}

/**
 * A search result as CONTRACT 5.10 shows it, plus what a person can read: `relevance` (0 to 1) and
 * each ranker's rank and score (null when the chunk was not among its candidates; `vector` is a
 * cosine, `bm25` unbounded).
 */
export function toPublicSearchResult(c: RetrievedChunk) {
  return {
    document_id: c.documentId,
    collection_id: c.collectionId,
    filename: c.filename,
    folder_path: c.folderPath,
    chunk: c.chunk,
    score: c.score,
    relevance: c.relevance,
    ranks: { bm25: c.lexicalRank, vector: c.denseRank },
    scores: { bm25: c.lexicalScore, vector: c.denseScore },
    ...(c.page !== null ? { page: c.page } : {}),
  };
}
