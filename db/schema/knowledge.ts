import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgEnum, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { DOCUMENT_KINDS, DOCUMENT_STATUSES } from "../enums";
import { createdAt } from "./columns";
import { companies } from "./companies";

export const documentStatusEnum = pgEnum("document_status", DOCUMENT_STATUSES);
export const documentKindEnum = pgEnum("document_kind", DOCUMENT_KINDS);

/**
 * A company's knowledge collection (SPEC "Knowledge collection"). Never deleted: DELETE sets
 * `is_active` false and `deactivated_at`, and its documents stay for audit (SPEC section 3).
 */
export const knowledgeCollections = pgTable(
  "knowledge_collections",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    deactivatedAt: timestamp("deactivated_at", { withTimezone: true }),
  },
  (t) => [index("knowledge_collections_company_idx").on(t.companyId, t.createdAt, t.id)],
);

/**
 * An uploaded document (SPEC "Knowledge document"): bytes in a file under KNOWLEDGE_STORAGE_DIR,
 * fsynced before this row commits; its indexing job is enqueued in the same transaction.
 */
export const knowledgeDocuments = pgTable(
  "knowledge_documents",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    collectionId: text("collection_id")
      .notNull()
      .references(() => knowledgeCollections.id),
    filename: text("filename").notNull(),
    /** The type decided from the bytes and the name (never the declared Content-Type alone). */
    mimeType: text("mime_type").notNull(),
    kind: documentKindEnum("kind").notNull(),
    sizeBytes: bigint("size_bytes", { mode: "number" }).notNull(),
    folderPath: text("folder_path"),
    status: documentStatusEnum("status").notNull().default("pending"),
    /** `"<stage>: <reason>"` (lib/knowledge/contracts.ts IndexingError) when `failed`. */
    error: text("error"),
    chunkCount: integer("chunk_count").notNull().default(0),
    /** Indexing attempts started (a job re-delivered after a crash counts again). */
    attempts: integer("attempts").notNull().default(0),
    storageKey: text("storage_key").notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    indexedAt: timestamp("indexed_at", { withTimezone: true }),
  },
  (t) => [
    // The list: one collection's most recent documents.
    index("knowledge_documents_collection_created_idx").on(t.collectionId, t.createdAt.desc(), t.id.desc()),
    index("knowledge_documents_company_idx").on(t.companyId),
    // The worker's cheap "is there anything to index" probe.
    index("knowledge_documents_pending_idx")
      .on(t.createdAt)
      .where(sql`${t.status} = 'pending'`),
  ],
);

export type KnowledgeCollection = typeof knowledgeCollections.$inferSelect;
export type KnowledgeDocument = typeof knowledgeDocuments.$inferSelect;
