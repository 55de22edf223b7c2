import "server-only";
import type { SQL } from "drizzle-orm";
import { sql } from "@/db/sql";
import type { DbOrTx } from "@/db/types";
import { env } from "@/lib/env";
import { createSimdDot, type SimdDot } from "./simd-dot";

/**
 * Per-process, per-company retrieval index: BM25 postings from the stored `tsv` and float32 vectors
 * in one WebAssembly.Memory scored by one SIMD call. PostgreSQL stays the truth: results are read
 * back from the table, and when the company's version moved the cache compares the table's seq
 * fingerprint, loads rows above its max seq, else reconciles (id, seq). Dead slots are compacted by
 * a full reload once they outnumber live ones. Memory layout: [query: 64 KiB][vectors: capacity ×
 * stride float32][scores: capacity float32], stride a multiple of 4.
 */

interface Slot {
  id: string;
  seq: number;
  documentId: string;
  collection: number;
}

export interface CompanyIndex {
  model: string;
  dim: number;
  slots: Slot[];
  alive: Uint8Array;
  hasVector: Uint8Array;
  /** Collection code per slot (index into `collections`), for the scope mask. */
  slotCollection: Int32Array;
  /** Document length in lexeme positions (BM25's |d|). */
  lengths: Float64Array;
  /** View of the vector region; replaced when the memory grows. */
  vectors: Float32Array;
  stride: number;
  capacity: number;
  memory: WebAssembly.Memory;
  /** null where WebAssembly SIMD is unavailable: search then scans `vectors` in JS. */
  simd: SimdDot | null;
  postings: Map<string, { slots: number[]; tfs: number[] }>;
  collections: string[];
  collectionCode: Map<string, number>;
  slotById: Map<string, number>;
  live: number;
  /** The company's version when the cache last matched the table; -1: never. */
  version: number;
  liveSeqSum: bigint;
  maxSeq: number;
}

const indexes = new Map<string, CompanyIndex>();
const refreshing = new Map<string, Promise<CompanyIndex>>();

interface Fingerprint {
  n: number;
  sum: bigint;
  max: number;
}

/** The company's version (−1: never changed), with the query's lexemes in the same round trip: `SELECT <extra>, version`. */
export const versionQuery = (companyId: string, extra: SQL) => sql`
  SELECT ${extra}, coalesce((SELECT version FROM knowledge_chunk_versions WHERE company_id = ${companyId}), -1)::bigint AS version`;

/** The company's fingerprint, in one index-only scan of (company_id, seq). */
const fingerprintQuery = (companyId: string) => sql`
  SELECT count(*)::int AS fp_n, coalesce(sum(seq), 0)::text AS fp_sum, coalesce(max(seq), 0)::bigint AS fp_max
  FROM knowledge_chunks WHERE company_id = ${companyId}`;

function parseFingerprint(row: Record<string, unknown>): Fingerprint {
  return { n: Number(row.fp_n), sum: BigInt(String(row.fp_sum)), max: Number(row.fp_max) };
}

export const QUERY_AT = 0;
export const VECTORS_AT = 65_536;
const PAGE = 65_536;
const pagesFor = (capacity: number, stride: number) =>
  Math.ceil((VECTORS_AT + capacity * stride * 4 + capacity * 4) / PAGE);
/** Byte offset of the scores region. */
export const scoresAt = (ix: CompanyIndex) => VECTORS_AT + ix.capacity * ix.stride * 4;

function empty(model: string, dim: number): CompanyIndex {
  const capacity = 1024;
  const stride = Math.ceil(dim / 4) * 4;
  const simd = createSimdDot(pagesFor(capacity, stride));
  const memory = simd?.memory ?? new WebAssembly.Memory({ initial: pagesFor(capacity, stride) });
  return {
    model,
    dim,
    slots: [],
    alive: new Uint8Array(capacity),
    hasVector: new Uint8Array(capacity),
    slotCollection: new Int32Array(capacity),
    lengths: new Float64Array(capacity),
    vectors: new Float32Array(memory.buffer, VECTORS_AT, capacity * stride),
    stride,
    capacity,
    memory,
    simd,
    postings: new Map(),
    collections: [],
    collectionCode: new Map(),
    slotById: new Map(),
    live: 0,
    version: -1,
    liveSeqSum: 0n,
    maxSeq: 0,
  };
}

function grow(ix: CompanyIndex, need: number) {
  if (need <= ix.capacity) return;
  let cap = ix.capacity;
  while (cap < need) cap *= 2;
  const a = new Uint8Array(cap);
  a.set(ix.alive);
  ix.alive = a;
  const h = new Uint8Array(cap);
  h.set(ix.hasVector);
  ix.hasVector = h;
  const c = new Int32Array(cap);
  c.set(ix.slotCollection);
  ix.slotCollection = c;
  const l = new Float64Array(cap);
  l.set(ix.lengths);
  ix.lengths = l;
  // The vector region keeps its place; the scores region after it is scratch and just moves.
  const pages = pagesFor(cap, ix.stride) - ix.memory.buffer.byteLength / PAGE;
  if (pages > 0) ix.memory.grow(pages);
  ix.capacity = cap;
  ix.vectors = new Float32Array(ix.memory.buffer, VECTORS_AT, cap * ix.stride);
}

/** Lexemes and frequencies from tsvector text (`'flow':3,7 'it''s':4`); a scanner, since a regex is slow on a full load. */
export function parseTsvector(text: string): Map<string, number> {
  const out = new Map<string, number>();
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (text.charCodeAt(i) !== 39 /* ' */) {
      i++;
      continue;
    }
    const start = ++i;
    let escaped = false;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 39) {
        if (text.charCodeAt(i + 1) !== 39) break;
        escaped = true;
        i += 2;
      } else if (c === 92 /* \ */) {
        escaped = true;
        i += 2;
      } else i++;
    }
    let lexeme = text.slice(start, i);
    if (escaped) lexeme = lexeme.replace(/''/g, "'").replace(/\\(.)/g, "$1");
    i++;
    let tf = 1;
    if (text.charCodeAt(i) === 58 /* : */) {
      for (i++; i < n && text.charCodeAt(i) !== 32; i++) if (text.charCodeAt(i) === 44 /* , */) tf++;
    }
    out.set(lexeme, tf);
  }
  return out;
}

interface LoadedRow {
  id: string;
  seq: string | number;
  collection_id: string;
  document_id: string;
  tsv: string;
  embedding: Buffer;
  embedding_model: string;
}

function kill(ix: CompanyIndex, slot: number) {
  if (!ix.alive[slot]) return;
  ix.alive[slot] = 0;
  ix.live--;
  ix.liveSeqSum -= BigInt(ix.slots[slot]!.seq);
  ix.slotById.delete(ix.slots[slot]!.id);
}

function add(ix: CompanyIndex, r: LoadedRow) {
  const old = ix.slotById.get(r.id);
  if (old !== undefined) kill(ix, old);
  const slot = ix.slots.length;
  grow(ix, slot + 1);
  let collection = ix.collectionCode.get(r.collection_id);
  if (collection === undefined) {
    collection = ix.collections.push(r.collection_id) - 1;
    ix.collectionCode.set(r.collection_id, collection);
  }
  const seq = Number(r.seq);
  ix.slots.push({ id: r.id, seq, documentId: r.document_id, collection });
  ix.slotCollection[slot] = collection;
  ix.slotById.set(r.id, slot);
  ix.alive[slot] = 1;
  ix.live++;
  ix.liveSeqSum += BigInt(seq);
  if (seq > ix.maxSeq) ix.maxSeq = seq;
  let length = 0;
  for (const [lexeme, tf] of parseTsvector(r.tsv)) {
    let p = ix.postings.get(lexeme);
    if (!p) ix.postings.set(lexeme, (p = { slots: [], tfs: [] }));
    p.slots.push(slot);
    p.tfs.push(tf);
    length += tf;
  }
  ix.lengths[slot] = length;
  if (r.embedding_model === ix.model && r.embedding.length === ix.dim * 4) {
    // A byte copy: the column is little-endian float32, as every platform Node runs on.
    new Uint8Array(ix.memory.buffer, VECTORS_AT + slot * ix.stride * 4, ix.dim * 4).set(r.embedding);
    ix.hasVector[slot] = 1;
  }
}

const ROW_COLUMNS = sql`id, seq, collection_id, document_id, tsv::text AS tsv, embedding, embedding_model`;
const LOAD_BATCH = 5_000;

async function loadAbove(db: DbOrTx, ix: CompanyIndex, companyId: string, fromSeq: number) {
  let after = fromSeq;
  for (;;) {
    const rows = (await db.execute(sql`SELECT ${ROW_COLUMNS} FROM knowledge_chunks
      WHERE company_id = ${companyId} AND seq > ${after} ORDER BY seq LIMIT ${LOAD_BATCH}`)) as unknown as LoadedRow[];
    for (const r of rows) add(ix, r);
    if (rows.length < LOAD_BATCH) return;
    after = Number(rows[rows.length - 1]!.seq);
  }
}

async function reconcile(db: DbOrTx, ix: CompanyIndex, companyId: string) {
  const rows = (await db.execute(
    sql`SELECT id, seq FROM knowledge_chunks WHERE company_id = ${companyId}`,
  )) as unknown as { id: string; seq: string }[];
  const present = new Map(rows.map((r) => [r.id, Number(r.seq)]));
  for (let s = 0; s < ix.slots.length; s++) {
    if (ix.alive[s] && present.get(ix.slots[s]!.id) !== ix.slots[s]!.seq) kill(ix, s);
  }
  const missing = rows.filter((r) => !ix.slotById.has(r.id)).map((r) => r.id);
  for (let i = 0; i < missing.length; i += LOAD_BATCH) {
    const loaded = (await db.execute(sql`SELECT ${ROW_COLUMNS} FROM knowledge_chunks
      WHERE company_id = ${companyId} AND id IN (SELECT jsonb_array_elements_text(${JSON.stringify(missing.slice(i, i + LOAD_BATCH))}::jsonb))`)) as unknown as LoadedRow[];
    for (const r of loaded) add(ix, r);
  }
}

const matches = (ix: CompanyIndex, fp: Fingerprint) =>
  ix.live === fp.n && ix.liveSeqSum === fp.sum && ix.maxSeq >= fp.max;

/** Drops least recently searched companies while the caches hold more than KNOWLEDGE_CACHE_CHUNKS slots; never `keep`. */
function evict(keep: string) {
  let total = 0;
  for (const ix of indexes.values()) total += ix.slots.length;
  for (const [companyId, ix] of indexes) {
    if (total <= env.KNOWLEDGE_CACHE_CHUNKS) break;
    if (companyId === keep) continue;
    indexes.delete(companyId);
    total -= ix.slots.length;
  }
}

/** The company's index brought up to the version just read; concurrent callers share one refresh. */
export async function companyIndex(
  db: DbOrTx,
  args: { companyId: string; model: string; dim: number; version: number },
): Promise<CompanyIndex> {
  const { companyId } = args;
  let ix = indexes.get(companyId);
  if (ix && (ix.model !== args.model || ix.dim !== args.dim)) ix = undefined;
  if (ix && ix.version === args.version) {
    // Most recently used last, for the eviction below.
    indexes.delete(companyId);
    indexes.set(companyId, ix);
    return ix;
  }
  const pending = refreshing.get(companyId);
  if (pending) return pending;
  const work = (async () => {
    let next = ix;
    if (!next || next.slots.length - next.live > Math.max(1_000, next.live)) next = empty(args.model, args.dim);
    // Read after the version: a change committed in between moves the version again, so the next
    // search looks again.
    const [row] = (await db.execute(fingerprintQuery(companyId))) as unknown as Record<string, unknown>[];
    const fp = parseFingerprint(row!);
    if (fp.max > next.maxSeq) await loadAbove(db, next, companyId, next.maxSeq);
    if (!matches(next, fp)) await reconcile(db, next, companyId);
    next.version = args.version;
    indexes.delete(companyId);
    indexes.set(companyId, next);
    evict(companyId);
    return next;
  })();
  refreshing.set(companyId, work);
  try {
    return await work;
  } finally {
    refreshing.delete(companyId);
  }
}
