import { sql, type SQL } from "drizzle-orm";
import { bigint, customType, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });
const bytea = customType<{ data: Buffer }>({ dataType: () => "bytea" });

/**
 * Indexed chunks, the rows retrieval reads. Collection and document ids are copied without foreign
 * keys and filename and folder denormalised, so results need no join; deleting a document deletes
 * its rows.
 */
export const knowledgeChunks = pgTable(
  "knowledge_chunks",
  {
    id: text("id").primaryKey(),
    /** Bumped on every insert and re-index (`seq = DEFAULT`): each process's search cache loads rows above its highest seq. */
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity().notNull(),
    companyId: text("company_id").notNull(),
    collectionId: text("collection_id").notNull(),
    documentId: text("document_id").notNull(),
    filename: text("filename").notNull(),
    folderPath: text("folder_path"),
    /** 0-based place in the document: with document_id, the key that keeps re-indexing idempotent. */
    position: integer("position").notNull(),
    text: text("text").notNull(),
    /** o200k_base tokens of `text` (the billing tokenizer). */
    tokens: integer("tokens").notNull(),
    page: integer("page"),
    sheet: text("sheet"),
    heading: text("heading"),
    /** PostgreSQL `english` stemming and stop words; BM25 statistics are read from it. */
    tsv: tsvector("tsv")
      .notNull()
      .generatedAlwaysAs((): SQL => sql`to_tsvector('english'::regconfig, "text")`),
    /** Little-endian float32 vector of `embedding_dim` components, L2-normalised. */
    embedding: bytea("embedding").notNull(),
    /** Which embedder made the vector (`offline:hash-384`, `openai:text-embedding-3-small`): vectors of different models are never compared. */
    embeddingModel: text("embedding_model").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("knowledge_chunks_document_position").on(t.documentId, t.position),
    index("knowledge_chunks_company_seq").on(t.companyId, t.seq),
    index("knowledge_chunks_tsv").using("gin", t.tsv),
  ],
);

export type KnowledgeChunk = typeof knowledgeChunks.$inferSelect;

/**
 * One counter per company, bumped by every transaction changing its chunks, so a search checks its
 * cache in one primary-key read; the bump's row lock also orders the company's indexing commits.
 */
export const knowledgeChunkVersions = pgTable("knowledge_chunk_versions", {
  companyId: text("company_id").primaryKey(),
  version: bigint("version", { mode: "number" }).notNull().default(0),
});
