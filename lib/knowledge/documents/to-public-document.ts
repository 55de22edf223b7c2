import type { KnowledgeDocument } from "@/db/schema";
import { toUnix } from "@/lib/time";

/** CONTRACT 5.6. */
export function toPublicDocument(d: KnowledgeDocument) {
  return {
    id: d.id,
    object: "knowledge.document" as const,
    collection_id: d.collectionId,
    filename: d.filename,
    mime_type: d.mimeType,
    size_bytes: d.sizeBytes,
    folder_path: d.folderPath,
    status: d.status,
    error: d.error,
    chunk_count: d.chunkCount,
    created_at: toUnix(d.createdAt),
  };
}
export type PublicDocument = ReturnType<typeof toPublicDocument>;
