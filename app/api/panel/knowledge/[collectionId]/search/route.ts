import { db } from "@/db/client";
import { panelRoute, readJson } from "@/lib/http";
import { searchCollection, toPublicSearchResult } from "@/lib/knowledge/search-collection";
import { SearchCollectionInput } from "@/lib/knowledge/search-schemas";

type P = { collectionId: string };

/** The panel's "test retrieval" box: the same ranking as POST /v1/knowledge/{id}/search (and runs). */
export const POST = panelRoute<P>(async ({ req, auth, params }) => {
  const input = await readJson(req, SearchCollectionInput);
  const results = await searchCollection(db, {
    companyId: auth.companyId,
    collectionId: params.collectionId,
    input,
    signal: req.signal,
  });
  return Response.json({ object: "list", data: results.map(toPublicSearchResult) });
});
