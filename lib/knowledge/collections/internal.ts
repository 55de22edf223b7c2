import "server-only";
import { and, count, eq, inArray } from "drizzle-orm";
import { knowledgeCollections, knowledgeDocuments, type KnowledgeCollection } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";

const collectionNotFound = (id: string) =>
  new AppError("not_found", `No knowledge collection found with id '${id}'`, { wireCode: "collection_not_found" });

/** A collection with the number of its documents (CONTRACT 5.6 `document_count`). */
export type CollectionWithCount = KnowledgeCollection & { documentCount: number };

/**
 * Active or deactivated: soft-deleted resources stay readable by id.
 * @throws not_found when it does not exist or belongs to another company (the same answer).
 */
export async function getCollectionInCompany(
  db: DbOrTx,
  args: { companyId: string; collectionId: string },
): Promise<KnowledgeCollection> {
  const [row] = await db
    .select()
    .from(knowledgeCollections)
    .where(and(eq(knowledgeCollections.id, args.collectionId), eq(knowledgeCollections.companyId, args.companyId)))
    .limit(1);
  if (!row) throw collectionNotFound(args.collectionId);
  return row;
}

/** The company's active collection, for writes (uploads): a deactivated one is a 404 too. */
export async function getActiveCollectionInCompany(
  db: DbOrTx,
  args: { companyId: string; collectionId: string },
): Promise<KnowledgeCollection> {
  const row = await getCollectionInCompany(db, args);
  if (!row.isActive) throw collectionNotFound(args.collectionId);
  return row;
}

export async function withDocumentCounts(db: DbOrTx, rows: KnowledgeCollection[]): Promise<CollectionWithCount[]> {
  if (rows.length === 0) return [];
  const counts = await db
    .select({ id: knowledgeDocuments.collectionId, n: count() })
    .from(knowledgeDocuments)
    .where(
      and(
        eq(knowledgeDocuments.companyId, rows[0]!.companyId),
        inArray(
          knowledgeDocuments.collectionId,
          rows.map((r) => r.id),
        ),
      ),
    )
    .groupBy(knowledgeDocuments.collectionId);
  const byId = new Map(counts.map((c) => [c.id, c.n]));
  return rows.map((r) => ({ ...r, documentCount: byId.get(r.id) ?? 0 }));
}
