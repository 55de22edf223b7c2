import "server-only";
import { and, eq } from "drizzle-orm";
import { knowledgeCollections } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { cursorPage, type Page, type PageQuery } from "@/lib/pagination";
import { withDocumentCounts, type CollectionWithCount } from "./internal";

/** The company's active collections (SPEC: deactivated ones leave the list, stay readable by id). */
export async function listCollections(
  db: DbOrTx,
  args: { companyId: string; page: PageQuery },
): Promise<Page<CollectionWithCount>> {
  const page = await cursorPage(db, {
    table: knowledgeCollections,
    idColumn: knowledgeCollections.id,
    createdColumn: knowledgeCollections.createdAt,
    where: and(eq(knowledgeCollections.companyId, args.companyId), eq(knowledgeCollections.isActive, true)),
    page: args.page,
  });
  return { data: await withDocumentCounts(db, page.data), hasMore: page.hasMore };
}

/** Every active collection of the company, oldest first (the panel's pickers; companies have a handful). */
export async function listActiveCollections(db: DbOrTx, args: { companyId: string }) {
  const rows = await db
    .select()
    .from(knowledgeCollections)
    .where(and(eq(knowledgeCollections.companyId, args.companyId), eq(knowledgeCollections.isActive, true)))
    .orderBy(knowledgeCollections.createdAt, knowledgeCollections.id)
    .limit(1000);
  return withDocumentCounts(db, rows);
}
