import "server-only";
import type { DbOrTx } from "@/db/types";

/**
 * PLACEHOLDER until lib/knowledge/index-chunks (the retrieval part of issue 13) lands on main with
 * its own `deleteDocumentChunks(db, documentId)`: there is no chunk table yet, so nothing to delete.
 * TODO(#13): replace every import of this file with `@/lib/knowledge/index-chunks` and delete it.
 */
export async function deleteDocumentChunks(_db: DbOrTx, _documentId: string): Promise<void> {}
