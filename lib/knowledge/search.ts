import "server-only";
import { sql } from "@/db/sql";
import type { DbOrTx } from "@/db/types";
import type { RetrievedChunk, SearchArgs } from "./contracts";
import { embedder, OFFLINE_DIM, OFFLINE_MODEL } from "./embeddings";
import { embedQuery } from "./embed-query";
import { normalize } from "./embed/offline";
import { rrfRelevance } from "./relevance";
import {
  companyIndex,
  parseTsvector,
  versionQuery,
  QUERY_AT,
  scoresAt,
  VECTORS_AT,
  type CompanyIndex,
} from "./search-cache";

/**
 * Retrieval tuning, chosen with bench/knowledge.ts on Cranfield; round, conventional values where
 * the curve was flat, since Cranfield is a development set.
 */
const RETRIEVAL = {
  /** BM25: 1.2 / 0.75 are the textbook defaults; k1 up to 2 scored a little higher on Cranfield, not kept. */
  k1: 1.2,
  b: 0.75,
  /** Candidates each ranker contributes to fusion. */
  listSize: 100,
  /** Pseudo-relevance feedback: the dense query is the query's vector plus `prfWeight` × the centroid of the top `prfDocs` lexical hits. */
  prfDocs: 5,
  prfWeight: 2,
  /** Reciprocal rank fusion constant (Cormack et al. 2009). */
  rrfK: 60,
  /** Score floor: a chunk without any query lexeme must have at least this cosine with the plain query. */
  denseFloor: 0.15,
};

interface Candidate {
  slot: number;
  lexicalScore: number | null;
  lexicalRank: number | null;
  denseScore: number | null;
  denseRank: number | null;
  fused: number;
}

/** Indices of the `n` highest scores among `slots`, best first. */
function topN(slots: Int32Array | number[], scores: Float64Array | Float32Array, count: number, n: number): number[] {
  // A bounded insertion list: n is small (100) next to the candidates (up to every chunk).
  const best: number[] = [];
  let floor = -Infinity;
  for (let i = 0; i < count; i++) {
    const s = slots[i]!;
    const v = scores[s]!;
    if (best.length === n && v <= floor) continue;
    let j = best.length - 1;
    if (best.length === n) best.pop();
    j = best.length - 1;
    while (j >= 0 && scores[best[j]!]! < v) j--;
    best.splice(j + 1, 0, s);
    if (best.length === n) floor = scores[best[n - 1]!]!;
  }
  return best;
}

function bm25(
  ix: CompanyIndex,
  inScope: (slot: number) => boolean,
  lexemes: string[],
  liveInScope: number,
  avgdl: number,
  scores: Float64Array,
): number[] {
  const touched: number[] = [];
  const { k1, b } = RETRIEVAL;
  for (const lexeme of lexemes) {
    const p = ix.postings.get(lexeme);
    if (!p) continue;
    let df = 0;
    for (const s of p.slots) if (ix.alive[s] && inScope(s)) df++;
    if (df === 0) continue;
    const idf = Math.log(1 + (liveInScope - df + 0.5) / (df + 0.5));
    for (let i = 0; i < p.slots.length; i++) {
      const s = p.slots[i]!;
      if (!ix.alive[s] || !inScope(s)) continue;
      const tf = p.tfs[i]!;
      if (scores[s] === 0) touched.push(s);
      scores[s]! += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * ix.lengths[s]!) / avgdl));
    }
  }
  return touched;
}

/** Four accumulators: V8 keeps them in registers, faster than one on the dense scan. */
function dot(vectors: Float32Array, base: number, q: Float32Array, dim: number): number {
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  const end = dim - (dim % 4);
  for (let i = 0; i < end; i += 4) {
    a0 += vectors[base + i]! * q[i]!;
    a1 += vectors[base + i + 1]! * q[i + 1]!;
    a2 += vectors[base + i + 2]! * q[i + 2]!;
    a3 += vectors[base + i + 3]! * q[i + 3]!;
  }
  for (let i = end; i < dim; i++) a0 += vectors[base + i]! * q[i]!;
  return a0 + a1 + a2 + a3;
}

/**
 * Every slot's dot product with `q` (dead and out-of-scope slots too: cheaper than skipping), in
 * one SIMD call or JS. The returned view is the index's scratch: read it before the next await.
 */
function scanVectors(ix: CompanyIndex, q: Float32Array, slotCount: number): Float32Array {
  if (ix.simd) {
    const query = new Float32Array(ix.memory.buffer, QUERY_AT, ix.stride);
    query.fill(0);
    query.set(q);
    ix.simd.scan(VECTORS_AT, QUERY_AT, scoresAt(ix), slotCount, ix.stride);
    return new Float32Array(ix.memory.buffer, scoresAt(ix), slotCount);
  }
  const scores = new Float32Array(slotCount);
  for (let s = 0; s < slotCount; s++) if (ix.hasVector[s]) scores[s] = dot(ix.vectors, s * ix.stride, q, ix.dim);
  return scores;
}

/**
 * The company's index narrowed to the searched collections, with the query's lexemes and vector.
 * @internal
 */
export interface SearchScope {
  ix: CompanyIndex;
  /** 1 for the live slots of the searched collections. */
  scope: Uint8Array;
  liveInScope: number;
  totalLength: number;
  lexemes: string[];
  queryVector: Float32Array;
}

/**
 * One ranker's best slots (at most `RETRIEVAL.listSize`), best first, and every slot's score.
 * @internal
 */
export interface Ranking {
  top: number[];
  scores: Float64Array | Float32Array;
}

/**
 * Embeds the query and loads the company's index; null when there is nothing to search (no
 * collection, a blank query, or none of the collections has a chunk).
 * @internal
 */
export async function openSearchScope(db: DbOrTx, args: SearchArgs): Promise<SearchScope | null> {
  if (args.collectionIds.length === 0 || !args.query.trim()) return null;
  const emb = embedder();
  const dim = emb.model === OFFLINE_MODEL ? OFFLINE_DIM : 0;
  const [first] = (await db.execute(
    versionQuery(args.companyId, sql`to_tsvector('english', ${args.query})::text AS q`),
  )) as unknown as Record<string, unknown>[];
  const queryVector = await embedQuery(db, args, emb);
  args.signal?.throwIfAborted();
  const ix = await companyIndex(db, {
    companyId: args.companyId,
    model: emb.model,
    dim: dim || queryVector.length,
    version: Number(first!.version),
  });
  args.signal?.throwIfAborted();

  const wantedCodes = new Uint8Array(ix.collections.length);
  for (const c of args.collectionIds) {
    const code = ix.collectionCode.get(c);
    if (code !== undefined) wantedCodes[code] = 1;
  }
  if (!wantedCodes.includes(1)) return null;
  const slotCount = ix.slots.length;
  const scope = new Uint8Array(slotCount);
  let liveInScope = 0;
  let totalLength = 0;
  for (let s = 0; s < slotCount; s++) {
    if (ix.alive[s] && wantedCodes[ix.slotCollection[s]!]) {
      scope[s] = 1;
      liveInScope++;
      totalLength += ix.lengths[s]!;
    }
  }
  const lexemes = [...parseTsvector(String(first!.q)).keys()];
  return { ix, scope, liveInScope, totalLength, lexemes, queryVector };
}

/**
 * BM25 with the statistics of the searched collections.
 * @internal
 */
export function rankLexical(sc: SearchScope): Ranking {
  const { ix, scope, liveInScope } = sc;
  const scores = new Float64Array(ix.slots.length);
  const inScope = (s: number) => scope[s] === 1;
  const touched = bm25(ix, inScope, sc.lexemes, liveInScope, sc.totalLength / Math.max(1, liveInScope), scores);
  return { top: topN(touched, scores, touched.length, RETRIEVAL.listSize), scores };
}

/** The query's vector moved towards the centroid of the lexical top hits (Rocchio feedback). */
function feedbackQuery(sc: SearchScope, lexical: Ranking): Float32Array {
  const { ix } = sc;
  const q = Float32Array.from(sc.queryVector);
  const feedback = lexical.top.slice(0, RETRIEVAL.prfDocs).filter((s) => ix.hasVector[s]);
  for (const s of feedback) {
    const base = s * ix.stride;
    for (let i = 0; i < ix.dim; i++) q[i]! += (RETRIEVAL.prfWeight * ix.vectors[base + i]!) / feedback.length;
  }
  normalize(q);
  return q;
}

/**
 * An exact scan of the scope's vectors with `q`; empty when `q` does not fit the index. The scores
 * are scratch of the index: fuse them before the next await.
 * @internal
 */
export function rankDense(sc: SearchScope, q: Float32Array): Ranking {
  const { ix, scope } = sc;
  const slotCount = ix.slots.length;
  let scores: Float32Array = new Float32Array(0);
  const withVector: number[] = [];
  if (q.length === ix.dim) {
    scores = scanVectors(ix, q, slotCount);
    for (let s = 0; s < slotCount; s++) if (scope[s] && ix.hasVector[s]) withVector.push(s);
  }
  return { top: topN(withVector, scores, withVector.length, RETRIEVAL.listSize), scores };
}

/**
 * Hybrid retrieval: BM25 plus an exact dense scan with pseudo-relevance feedback, fused by
 * reciprocal rank. Results are read back filtered by company and collections, so a deleted or
 * foreign chunk is never returned.
 */
export async function search(db: DbOrTx, args: SearchArgs): Promise<RetrievedChunk[]> {
  const sc = await openSearchScope(db, args);
  if (!sc) return [];
  const lexical = rankLexical(sc);
  return fuseRankings(db, args, sc, { lexical, dense: rankDense(sc, feedbackQuery(sc, lexical)) });
}

/**
 * The given rankings fused by reciprocal rank, floored, best first. Results are read back from
 * `knowledge_chunks` filtered by company and collections, so a deleted chunk or another company's
 * row is never returned.
 * @internal
 */
export async function fuseRankings(
  db: DbOrTx,
  args: SearchArgs,
  sc: SearchScope,
  rankings: { lexical?: Ranking; dense?: Ranking },
): Promise<RetrievedChunk[]> {
  const { ix, queryVector } = sc;
  const candidates = new Map<number, Candidate>();
  const candidate = (slot: number) => {
    let c = candidates.get(slot);
    if (!c)
      candidates.set(
        slot,
        (c = { slot, lexicalScore: null, lexicalRank: null, denseScore: null, denseRank: null, fused: 0 }),
      );
    return c;
  };

  const { lexical, dense } = rankings;
  if (lexical)
    lexical.top.forEach((s, r) =>
      Object.assign(candidate(s), { lexicalScore: lexical.scores[s]!, lexicalRank: r + 1 }),
    );
  if (dense)
    dense.top.forEach((s, r) => Object.assign(candidate(s), { denseScore: dense.scores[s]!, denseRank: r + 1 }));
  const ranked: Candidate[] = [];
  for (const c of candidates.values()) {
    if (
      c.lexicalRank === null &&
      (queryVector.length !== ix.dim || dot(ix.vectors, c.slot * ix.stride, queryVector, ix.dim) < RETRIEVAL.denseFloor)
    )
      continue;
    c.fused =
      (c.lexicalRank ? 1 / (RETRIEVAL.rrfK + c.lexicalRank) : 0) +
      (c.denseRank ? 1 / (RETRIEVAL.rrfK + c.denseRank) : 0);
    ranked.push(c);
  }
  ranked.sort((a, b) => b.fused - a.fused || a.slot - b.slot);
  // A ranker with no candidate (no vectors in scope) could not have ranked anything first.
  const rankers = [lexical, dense].filter((r) => r && r.top.length > 0).length;
  // Read back a few more than asked: rows deleted since the cache loaded them drop out here.
  const wanted = ranked.slice(0, args.topK + 10);
  if (wanted.length === 0) return [];
  const rows = (await db.execute(sql`
    SELECT id, document_id, collection_id, filename, folder_path, text, page FROM knowledge_chunks
    WHERE company_id = ${args.companyId}
      AND collection_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(args.collectionIds)}::jsonb))
      AND id IN (SELECT jsonb_array_elements_text(${JSON.stringify(wanted.map((c) => ix.slots[c.slot]!.id))}::jsonb))`)) as unknown as {
    id: string;
    document_id: string;
    collection_id: string;
    filename: string;
    folder_path: string | null;
    text: string;
    page: number | null;
  }[];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const out: RetrievedChunk[] = [];
  for (const c of wanted) {
    const r = byId.get(ix.slots[c.slot]!.id);
    if (!r) continue;
    out.push({
      chunkId: r.id,
      documentId: r.document_id,
      collectionId: r.collection_id,
      filename: r.filename,
      folderPath: r.folder_path,
      chunk: r.text,
      page: r.page,
      score: c.fused,
      relevance: rrfRelevance({ fused: c.fused, rankers, k: RETRIEVAL.rrfK }),
      lexicalScore: c.lexicalScore,
      denseScore: c.denseScore,
      lexicalRank: c.lexicalRank,
      denseRank: c.denseRank,
    });
    if (out.length === args.topK) break;
  }
  return out;
}
