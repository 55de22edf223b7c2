import { db } from "@/db/client";
import { env } from "@/lib/env";
import { panelRoute } from "@/lib/http";
import {
  createDocument,
  getActiveCollectionInCompany,
  listDocuments,
  receiveUpload,
  toPublicDocument,
} from "@/lib/knowledge";

type P = { collectionId: string };

export const GET = panelRoute<P>(async ({ auth, params }) => {
  const docs = await listDocuments(db, { companyId: auth.companyId, collectionId: params.collectionId });
  return Response.json({ object: "list", data: docs.map(toPublicDocument) });
});

/** The same streamed upload as the API (one file per request: the page sends each file on its own, with its progress). */
export const POST = panelRoute<P>(async ({ req, auth, params }) => {
  const target = { companyId: auth.companyId, collectionId: params.collectionId };
  await getActiveCollectionInCompany(db, target);
  const upload = await receiveUpload(req, env.MAX_UPLOAD_MB * 1024 * 1024);
  return Response.json(toPublicDocument(await createDocument(db, { ...target, upload })), { status: 202 });
});
