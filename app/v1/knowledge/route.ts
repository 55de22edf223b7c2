import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readJson, readQuery, routes } from "@/lib/http";
import {
  CollectionListQuery,
  createCollection,
  CreateCollectionInput,
  listCollections,
  toPublicCollection,
} from "@/lib/knowledge";
import { toListResponse } from "@/lib/pagination";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const page = await listCollections(db, { companyId: auth.companyId, page: readQuery(req, CollectionListQuery) });
    return Response.json(toListResponse(page, toPublicCollection));
  }),
  POST: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const input = await readJson(req, CreateCollectionInput);
    const collection = await createCollection(db, { companyId: auth.companyId, input });
    return Response.json(toPublicCollection(collection), { status: 201 });
  }),
});
