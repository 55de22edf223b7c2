import "server-only";
import { and, eq } from "drizzle-orm";
import { knowledgeCollections, type KnowledgeCollection } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { getCollectionInCompany } from "./internal";

/**
 * Soft delete (SPEC 3): the collection leaves lists and retrieval; its documents and chunks stay
 * for audit.
 * @throws not_found for another company's or an unknown id; conflict when already deactivated.
 */
export async function deactivateCollection(
  db: DbOrTx,
  args: { companyId: string; collectionId: string },
): Promise<KnowledgeCollection> {
  const found = await getCollectionInCompany(db, args);
  const now = new Date();
  // Active guard in WHERE: of two concurrent deletes one updates, the other gets the 409.
  const [row] = await db
    .update(knowledgeCollections)
    .set({ isActive: false, deactivatedAt: now, updatedAt: now })
    .where(
      and(
        eq(knowledgeCollections.id, found.id),
        eq(knowledgeCollections.companyId, args.companyId),
        eq(knowledgeCollections.isActive, true),
      ),
    )
    .returning();
  if (!row) throw new AppError("conflict", "Knowledge collection already deleted", { wireCode: "already_deleted" });
  return row;
}
