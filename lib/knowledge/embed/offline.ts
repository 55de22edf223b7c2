import { stemmedTokens } from "./features";

/** Dimensions of the offline embedding: 384 measured best of 256/384/512 fused on Cranfield (bench/knowledge.ts). */
export const OFFLINE_DIM = 384;
export const OFFLINE_MODEL = `offline:hash-${OFFLINE_DIM}`;

/** FNV-1a, 32 bits. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The offline default embedding: no key, no download, no corpus statistics (a chunk's vector never
 * changes as the collection grows). Stemmed words (PostgreSQL's English stop words dropped) are
 * feature-hashed into OFFLINE_DIM signed buckets (the sign from the hash's low bit halves the bias
 * of collisions) with log(1 + tf) weights, then L2-normalised. On its own it ranks below BM25; it
 * earns its place as the space of pseudo-relevance feedback (lib/knowledge/search.ts): the query's
 * vector plus the centroid of the lexical top hits finds relevant chunks that share few words with
 * the query. Synchronous and pure.
 */
export function embedOffline(text: string): Float32Array {
  const tf = new Map<string, number>();
  for (const t of stemmedTokens(text)) tf.set(t, (tf.get(t) ?? 0) + 1);
  const v = new Float32Array(OFFLINE_DIM);
  for (const [t, n] of tf) {
    const h = fnv1a(t);
    v[(h >>> 1) % OFFLINE_DIM]! += (h & 1 ? 1 : -1) * Math.log1p(n);
  }
  return normalize(v);
}

export function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  n = Math.sqrt(n);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
}
