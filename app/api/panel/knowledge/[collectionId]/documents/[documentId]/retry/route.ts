import { db } from "@/db/client";
import { panelRoute } from "@/lib/http";
import { retryDocument, toPublicDocument } from "@/lib/knowledge";

type P = { collectionId: string; documentId: string };

export const POST = panelRoute<P>(async ({ auth, params }) =>
  Response.json(toPublicDocument(await retryDocument(db, { companyId: auth.companyId, ...params }))),
);
