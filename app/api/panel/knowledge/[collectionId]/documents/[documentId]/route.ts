import { db } from "@/db/client";
import { panelRoute } from "@/lib/http";
import { deleteDocument } from "@/lib/knowledge";

type P = { collectionId: string; documentId: string };

export const DELETE = panelRoute<P>(async ({ auth, params }) => {
  const doc = await deleteDocument(db, { companyId: auth.companyId, ...params });
  return Response.json({ id: doc.id, object: "knowledge.document", deleted: true });
});
