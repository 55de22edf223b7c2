import "server-only";
import type { DbOrTx } from "@/db/types";
import { getCollectionInCompany, withDocumentCounts, type CollectionWithCount } from "./internal";

/** One collection, deactivated ones included (`is_active: false`). @throws not_found (another company's too). */
export async function getCollection(
  db: DbOrTx,
  args: { companyId: string; collectionId: string },
): Promise<CollectionWithCount> {
  const [row] = await withDocumentCounts(db, [await getCollectionInCompany(db, args)]);
  return row!;
}
