import { stemmedTokens } from "./features";

/** Dimensions of the offline embedding; chosen with bench/knowledge.ts. */
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
 * The offline embedding: stemmed words feature-hashed into OFFLINE_DIM signed buckets with log(1 +
 * tf) weights, L2-normalised; no key, download or corpus statistics. Weak alone, it serves
 * pseudo-relevance feedback in search.
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
