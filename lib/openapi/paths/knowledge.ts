import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { DOCUMENT_STATUSES } from "@/db/enums";
import { CollectionListQuery, CreateCollectionInput } from "@/lib/knowledge/collections/schemas";
import type { toPublicCollection } from "@/lib/knowledge/collections/to-public-collection";
import type { toPublicDocument } from "@/lib/knowledge/documents/to-public-document";
import type { toPublicSearchResult } from "@/lib/knowledge/search-collection";
import { SearchCollectionInput } from "@/lib/knowledge/search-schemas";
import {
  deletedOf,
  describes,
  json,
  listOf,
  operation,
  pathParams,
  plainListOf,
  rateLimited,
  unixTime,
} from "../common/components";

/** Knowledge collections, their documents and search (SPEC, CONTRACT 5.6, 5.10). */
export function registerKnowledgePaths(r: OpenAPIRegistry) {
  const tags = ["Knowledge"];
  const Collection = r.register(
    "KnowledgeCollection",
    describes<ReturnType<typeof toPublicCollection>>()(
      z.object({
        id: z.string().meta({ example: "kc_…" }),
        object: z.literal("knowledge.collection"),
        name: z.string(),
        description: z.string(),
        is_active: z.boolean(),
        created_at: unixTime(),
        document_count: z.number().int(),
      }),
    ),
  );
  const Document = r.register(
    "KnowledgeDocument",
    describes<ReturnType<typeof toPublicDocument>>()(
      z.object({
        id: z.string().meta({ example: "doc_…" }),
        object: z.literal("knowledge.document"),
        collection_id: z.string(),
        filename: z.string(),
        mime_type: z.string(),
        size_bytes: z.number().int(),
        folder_path: z.string().nullable(),
        status: z.enum(DOCUMENT_STATUSES),
        error: z.string().nullable().meta({ description: "`<stage>: <reason>` when `failed`" }),
        chunk_count: z.number().int(),
        created_at: unixTime(),
      }),
    ),
  );
  const Ranks = z.object({ bm25: z.number().nullable(), vector: z.number().nullable() });
  const SearchResult = r.register(
    "KnowledgeSearchResult",
    describes<ReturnType<typeof toPublicSearchResult>>()(
      z.object({
        document_id: z.string(),
        collection_id: z.string(),
        filename: z.string(),
        folder_path: z.string().nullable(),
        chunk: z.string(),
        score: z.number().meta({ description: "Reciprocal-rank fusion of BM25 and vector ranks" }),
        relevance: z.number().meta({ description: "`score` over the best possible, 0 to 1" }),
        ranks: Ranks,
        scores: Ranks,
        page: z.number().int().optional(),
      }),
    ),
  );
  const Upload = z.object({
    file: z.string().meta({ format: "binary", description: "PDF, TXT, MD, DOCX, XLSX, DOC or XLS" }),
    folder_path: z.string().optional(),
  });
  const collection = pathParams("collectionId");
  const document = pathParams("collectionId", "documentId");

  operation(r, {
    method: "get",
    path: "/v1/knowledge",
    operationId: "listKnowledgeCollections",
    summary: "List knowledge collections",
    tags,
    scope: "chat",
    request: { query: CollectionListQuery },
    ok: { 200: json("The active collections", listOf(Collection), rateLimited) },
    errors: [400],
  });
  operation(r, {
    method: "post",
    path: "/v1/knowledge",
    operationId: "createKnowledgeCollection",
    summary: "Create knowledge collection",
    tags,
    scope: "chat",
    request: { body: { content: { "application/json": { schema: CreateCollectionInput } } } },
    ok: { 201: json("The new collection", Collection, rateLimited) },
    errors: [400],
  });
  operation(r, {
    method: "get",
    path: "/v1/knowledge/{collectionId}",
    operationId: "getKnowledgeCollection",
    summary: "Retrieve knowledge collection",
    tags,
    scope: "chat",
    request: { params: collection },
    ok: { 200: json("The collection (`is_active: false` once deleted)", Collection, rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "delete",
    path: "/v1/knowledge/{collectionId}",
    operationId: "deleteKnowledgeCollection",
    summary: "Delete knowledge collection",
    description: "Deactivates it: gone from lists and retrieval, documents kept.",
    tags,
    scope: "chat",
    request: { params: collection },
    ok: { 200: json("Deleted", deletedOf("knowledge.collection"), rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "get",
    path: "/v1/knowledge/{collectionId}/documents",
    operationId: "listKnowledgeDocuments",
    summary: "List documents",
    description: "The 500 most recent, newest first, unpaged.",
    tags,
    scope: "chat",
    request: { params: collection },
    ok: { 200: json("The documents", plainListOf(Document), rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "post",
    path: "/v1/knowledge/{collectionId}/documents",
    operationId: "uploadKnowledgeDocument",
    summary: "Upload document",
    description: "Indexed in the background: poll the document until `ready` or `failed`.",
    tags,
    scope: "chat",
    request: { params: collection, body: { content: { "multipart/form-data": { schema: Upload } } } },
    ok: { 202: json("The document, `pending`", Document, rateLimited) },
    errors: [400, 402, 404, 408, 413, 415],
  });
  operation(r, {
    method: "get",
    path: "/v1/knowledge/{collectionId}/documents/{documentId}",
    operationId: "getKnowledgeDocument",
    summary: "Retrieve document",
    tags,
    scope: "chat",
    request: { params: document },
    ok: { 200: json("The document", Document, rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "delete",
    path: "/v1/knowledge/{collectionId}/documents/{documentId}",
    operationId: "deleteKnowledgeDocument",
    summary: "Delete document",
    tags,
    scope: "chat",
    request: { params: document },
    ok: { 200: json("Deleted with its chunks", deletedOf("knowledge.document"), rateLimited) },
    errors: [404],
  });
  operation(r, {
    method: "post",
    path: "/v1/knowledge/{collectionId}/documents/{documentId}/retry",
    operationId: "retryKnowledgeDocument",
    summary: "Retry document",
    description: "A `failed` document back to `pending`, indexed again.",
    tags,
    scope: "chat",
    request: { params: document },
    ok: { 200: json("The document, `pending`", Document, rateLimited) },
    errors: [404, 409],
  });
  operation(r, {
    method: "post",
    path: "/v1/knowledge/{collectionId}/search",
    operationId: "searchKnowledgeCollection",
    summary: "Search knowledge collection",
    description: "Best first, ranked as runs rank retrieval.",
    tags,
    scope: "chat",
    request: { params: collection, body: { content: { "application/json": { schema: SearchCollectionInput } } } },
    ok: { 200: json("The best chunks", plainListOf(SearchResult), rateLimited) },
    errors: [400, 402, 404],
  });
}
