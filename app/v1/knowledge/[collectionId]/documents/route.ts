import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { env } from "@/lib/env";
import { apiRoute, routes } from "@/lib/http";
import {
  createDocument,
  getActiveCollectionInCompany,
  listDocuments,
  receiveUpload,
  toPublicDocument,
} from "@/lib/knowledge";

type P = { collectionId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) => {
    const docs = await listDocuments(db, { companyId: auth.companyId, collectionId: params.collectionId });
    return Response.json({ object: "list", data: docs.map(toPublicDocument) });
  }),
  POST: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) => {
    const target = { companyId: auth.companyId, collectionId: params.collectionId };
    // 404 before a byte of the body is read.
    await getActiveCollectionInCompany(db, target);
    const upload = await receiveUpload(req, env.MAX_UPLOAD_MB * 1024 * 1024);
    const doc = await createDocument(db, { ...target, upload });
    return Response.json(toPublicDocument(doc), { status: 202 });
  }),
});
