/**
 * The seams of the knowledge subsystem, so its parts can be built and tested apart:
 *
 *   upload (documents) ─store + enqueue─▶ job (jobs) ─▶ parse (capped child) → ParsedDocument
 *     ─▶ chunk + embed + index (index-chunks) → knowledge_chunks ◀─ retrieval (search)
 */

/** The stages a document's indexing goes through; a failed document's `error` names one. */
export const INDEX_STAGE = { store: "store", parse: "parse", chunk: "chunk", embed: "embed", index: "index" } as const;
export type IndexStage = (typeof INDEX_STAGE)[keyof typeof INDEX_STAGE];

/** A failure a user can act on: the stage and the reason in words ("the PDF is encrypted"). */
export class IndexingError extends Error {
  constructor(
    readonly stage: IndexStage,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${stage}: ${reason}`, options);
    this.name = "IndexingError";
  }
}

/** The document kinds allowed (decided from the bytes together with the name, never the declared type alone). */
export const DOCUMENT_KIND = {
  pdf: "pdf",
  docx: "docx",
  xlsx: "xlsx",
  doc: "doc",
  xls: "xls",
  txt: "txt",
  md: "md",
} as const;
export type DocumentKind = (typeof DOCUMENT_KIND)[keyof typeof DOCUMENT_KIND];

/** One structural piece of a document, in reading order; a `row` carries its sheet and header so it makes sense alone. */
export interface Segment {
  kind: "heading" | "paragraph" | "row" | "table";
  text: string;
  /** 1-based page (PDF). */
  page?: number;
  /** Sheet name (XLSX/XLS). */
  sheet?: string;
  /** The sheet's header row, as text (rows only). */
  header?: string;
  /** Heading level 1..6 (headings). */
  level?: number;
}

export interface ParsedDocument {
  kind: DocumentKind;
  segments: Segment[];
  /** Pages (PDF) or sheets (spreadsheets), when the format has them. */
  pages?: number;
}

/** A chunk as indexed: its text, its place and its source. */
export interface ChunkInput {
  /** 0-based position in the document; with the document id, the chunk's key (re-indexing never duplicates). */
  position: number;
  text: string;
  tokens: number;
  page?: number;
  sheet?: string;
  /** The nearest heading above the chunk, when the format has headings. */
  heading?: string;
}

/** One retrieved chunk (CONTRACT 5.10 search result, plus the scores the run steps show). */
export interface RetrievedChunk {
  chunkId: string;
  documentId: string;
  collectionId: string;
  filename: string;
  folderPath: string | null;
  chunk: string;
  page: number | null;
  /** The fused score the ranking used (CONTRACT `score`). */
  score: number;
  /** `score` as a share of the best possible, 0 to 1 (lib/knowledge/relevance.ts). */
  relevance: number;
  /** Components, null when the chunk was not a candidate of that ranker. */
  lexicalScore: number | null;
  denseScore: number | null;
  lexicalRank: number | null;
  denseRank: number | null;
}

/** What the retrieval stage and the search endpoint call (lib/knowledge/search). */
export interface SearchArgs {
  companyId: string;
  /** Active collections of the company the caller may use (already checked). */
  collectionIds: string[];
  query: string;
  topK: number;
  signal?: AbortSignal;
  /**
   * Takes the query embedding's cost when billed (a run bills it with its own call); absent, it is
   * billed as its own `usage` entry. Either way the credit is held before the provider call, so a
   * company that cannot pay gets 402.
   */
  payQuery?: (cost: QueryEmbeddingCost) => void;
}

/** What embedding one search query cost (a billed embedder only). */
export interface QueryEmbeddingCost {
  model: string;
  tokens: number;
  costMicro: number;
}
