import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, routes } from "@/lib/http";
import { deactivateCollection, getCollection, toPublicCollection } from "@/lib/knowledge";

type P = { collectionId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(
      toPublicCollection(await getCollection(db, { companyId: auth.companyId, collectionId: params.collectionId })),
    ),
  ),
  DELETE: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) => {
    const collection = await deactivateCollection(db, { companyId: auth.companyId, collectionId: params.collectionId });
    return Response.json({ id: collection.id, object: "knowledge.collection", deleted: true });
  }),
});
