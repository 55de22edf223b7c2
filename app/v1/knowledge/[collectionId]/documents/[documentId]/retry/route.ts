import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, routes } from "@/lib/http";
import { retryDocument, toPublicDocument } from "@/lib/knowledge";

type P = { collectionId: string; documentId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(toPublicDocument(await retryDocument(db, { companyId: auth.companyId, ...params }))),
  ),
});
