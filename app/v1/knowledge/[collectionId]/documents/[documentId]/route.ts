import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, routes } from "@/lib/http";
import { deleteDocument, getDocument, toPublicDocument } from "@/lib/knowledge";

type P = { collectionId: string; documentId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(toPublicDocument(await getDocument(db, { companyId: auth.companyId, ...params }))),
  ),
  DELETE: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) => {
    const doc = await deleteDocument(db, { companyId: auth.companyId, ...params });
    return Response.json({ id: doc.id, object: "knowledge.document", deleted: true });
  }),
});
