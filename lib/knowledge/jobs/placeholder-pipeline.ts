import "server-only";
import type { DbOrTx } from "@/db/types";
import { IndexingError, type DocumentKind, type ParsedDocument } from "../contracts";

/**
 * PLACEHOLDERS for the parts of issue 13 built in parallel, so uploads and jobs can be tested
 * end to end before they land: `parseDocument` (lib/knowledge/parse) reads TXT and Markdown only,
 * `indexDocument` (lib/knowledge/index-chunks) stores nothing and counts paragraphs as chunks.
 * TODO(#13): delete this file once lib/knowledge/parse and lib/knowledge/index-chunks are on main
 * (lib/knowledge/jobs/pipeline.ts switches to them).
 */
export async function parseDocument(input: { bytes: Buffer; filename: string; kind: DocumentKind; signal?: AbortSignal }): Promise<ParsedDocument> {
  if (input.kind !== "txt" && input.kind !== "md") throw new IndexingError("parse", `parsing ${input.kind.toUpperCase()} files is not available yet`);
  const text = input.bytes.toString("utf8");
  const segments = text
    .split(/\n\s*\n/)
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => ({ kind: "paragraph" as const, text: t }));
  if (segments.length === 0) throw new IndexingError("parse", "no text found in the file");
  return { kind: input.kind, segments };
}

export async function indexDocument(
  _db: DbOrTx,
  args: { companyId: string; collectionId: string; documentId: string; parsed: ParsedDocument },
): Promise<{ chunkCount: number }> {
  return { chunkCount: args.parsed.segments.length };
}
