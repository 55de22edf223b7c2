import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readJson, routes } from "@/lib/http";
import { searchCollection, toPublicSearchResult } from "@/lib/knowledge/search-collection";
import { SearchCollectionInput } from "@/lib/knowledge/search-schemas";

type P = { collectionId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) => {
    const input = await readJson(req, SearchCollectionInput);
    const results = await searchCollection(db, {
      companyId: auth.companyId,
      collectionId: params.collectionId,
      input,
      signal: req.signal,
    });
    return Response.json({ object: "list", data: results.map(toPublicSearchResult) });
  }),
});
