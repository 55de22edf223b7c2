import "server-only";
import { and, eq, gte } from "drizzle-orm";
import { sql } from "@/db/sql";
import { knowledgeChunks } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { randomBase62 } from "@/lib/ids";
import { IndexingError, type ChunkInput, type ParsedDocument } from "../contracts";
import { embedder, vectorToBytes } from "../embeddings";
import { bumpChunkVersion } from "./bump-chunk-version";
import { chunkDocument } from "./chunk-document";
import { embedChunks } from "./embed-chunks";

export interface IndexDocumentArgs {
  companyId: string;
  collectionId: string;
  documentId: string;
  /** Copied onto each chunk for search results; read from the document's row when not given. */
  filename?: string;
  folderPath?: string | null;
  parsed: ParsedDocument;
  signal?: AbortSignal;
}

/** The document's name and folder, read by table name (retrieval does not import that module); its id if deleted. */
async function documentSource(
  db: DbOrTx,
  args: { companyId: string; documentId: string },
): Promise<{ filename: string; folderPath: string | null }> {
  const [row] = (await db.execute(sql`SELECT filename, folder_path FROM knowledge_documents
    WHERE id = ${args.documentId} AND company_id = ${args.companyId}`)) as unknown as {
    filename: string;
    folder_path: string | null;
  }[];
  return { filename: row?.filename ?? args.documentId, folderPath: row?.folder_path ?? null };
}

/** Rows per INSERT statement (one jsonb parameter each). */
const INSERT_BATCH = 500;

/**
 * Idempotent, keyed by (document_id, position): pg-boss is at-least-once. Embedding runs before the
 * transaction so a slow provider holds none; the bill commits with the chunks.
 * @throws IndexingError (stage chunk or embed) with a reason a user can act on.
 */
export async function indexDocument(db: DbOrTx, args: IndexDocumentArgs): Promise<{ chunkCount: number }> {
  const { parsed, ...rest } = args;
  return indexChunks(db, { ...rest, chunks: chunkDocument(parsed) });
}

/**
 * indexDocument with the chunks already cut (the knowledge bench sweeps chunk sizes this way).
 * @internal
 */
export async function indexChunks(
  db: DbOrTx,
  args: Omit<IndexDocumentArgs, "parsed"> & { chunks: ChunkInput[] },
): Promise<{ chunkCount: number }> {
  const { chunks } = args;
  const source =
    args.filename !== undefined
      ? { filename: args.filename, folderPath: args.folderPath ?? null }
      : await documentSource(db, args);
  if (chunks.length === 0) throw new IndexingError("chunk", "no text found in the document");
  const emb = embedder();
  const embedded = await embedChunks(db, args, emb);
  const vectors = embedded.vectors;
  await db
    .transaction(async (tx) => {
      for (let i = 0; i < chunks.length; i += INSERT_BATCH) {
        const rows = chunks.slice(i, i + INSERT_BATCH).map((c, j) => ({
          id: `chk_${randomBase62(22)}`,
          position: c.position,
          text: c.text,
          tokens: c.tokens,
          page: c.page ?? null,
          sheet: c.sheet ?? null,
          heading: c.heading ?? null,
          embedding: vectorToBytes(vectors[i + j]!).toString("base64"),
        }));
        // `seq = DEFAULT` gives a re-indexed row a new seq, so every process's search cache reloads it.
        // The WHERE keeps a document id of another company (never minted twice, but ids are input) untouched.
        await tx.execute(sql`
        INSERT INTO knowledge_chunks (id, company_id, collection_id, document_id, filename, folder_path, position, text, tokens, page, sheet, heading, embedding, embedding_model)
        SELECT u.id, ${args.companyId}, ${args.collectionId}, ${args.documentId}, ${source.filename}, ${source.folderPath},
               u.position, u.text, u.tokens, u.page, u.sheet, u.heading, decode(u.embedding, 'base64'), ${emb.model}
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS u(id text, position int, text text, tokens int, page int, sheet text, heading text, embedding text)
        ON CONFLICT (document_id, position) DO UPDATE SET
          collection_id = excluded.collection_id, filename = excluded.filename, folder_path = excluded.folder_path,
          text = excluded.text, tokens = excluded.tokens, page = excluded.page, sheet = excluded.sheet, heading = excluded.heading,
          embedding = excluded.embedding, embedding_model = excluded.embedding_model, seq = DEFAULT
        WHERE knowledge_chunks.company_id = excluded.company_id`);
      }
      await tx
        .delete(knowledgeChunks)
        .where(
          and(
            eq(knowledgeChunks.companyId, args.companyId),
            eq(knowledgeChunks.documentId, args.documentId),
            gte(knowledgeChunks.position, chunks.length),
          ),
        );
      await bumpChunkVersion(tx, args.companyId);
      // Last, so the company row is locked for the bill only until the commit.
      await embedded.bill(tx);
    })
    .then(
      () => embedded.end(true),
      (err: unknown) => {
        embedded.end(false);
        throw err;
      },
    );
  return { chunkCount: chunks.length };
}
