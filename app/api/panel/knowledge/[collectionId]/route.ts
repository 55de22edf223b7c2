import { db } from "@/db/client";
import { panelRoute } from "@/lib/http";
import { deactivateCollection } from "@/lib/knowledge";

type P = { collectionId: string };

/** Soft delete: gone from lists and retrieval, documents kept. */
export const DELETE = panelRoute<P>(async ({ auth, params }) => {
  const collection = await deactivateCollection(db, { companyId: auth.companyId, collectionId: params.collectionId });
  return Response.json({ id: collection.id, object: "knowledge.collection", deleted: true });
});
