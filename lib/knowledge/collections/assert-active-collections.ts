import "server-only";
import { and, eq, inArray } from "drizzle-orm";
import { knowledgeCollections } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";

/** The company's active collections among `ids` (a profile may still name a deactivated one). One query. */
export async function activeCollectionIds(db: DbOrTx, companyId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: knowledgeCollections.id })
    .from(knowledgeCollections)
    .where(
      and(
        eq(knowledgeCollections.companyId, companyId),
        eq(knowledgeCollections.isActive, true),
        inArray(knowledgeCollections.id, ids),
      ),
    );
  return rows.map((r) => r.id);
}

/** Profiles' `knowledge_base_ids` must name active collections of the company. @throws 400 naming `knowledge_base_ids`. */
export async function assertActiveCollections(db: DbOrTx, companyId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = new Set(await activeCollectionIds(db, companyId, ids));
  const missing = ids.find((id) => !found.has(id));
  if (missing !== undefined) {
    throw new AppError("invalid_request", `knowledge_base_ids: no active knowledge collection with id '${missing}'`, {
      param: "knowledge_base_ids",
      wireCode: "collection_not_found",
    });
  }
}
