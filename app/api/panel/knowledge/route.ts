import { db } from "@/db/client";
import { panelRoute, readJson } from "@/lib/http";
import { createCollection, CreateCollectionInput, listActiveCollections, toPublicCollection } from "@/lib/knowledge";

/** Every active collection (the page and the profiles' picker); unpaged: companies keep a handful. */
export const GET = panelRoute(async ({ auth }) => {
  const rows = await listActiveCollections(db, { companyId: auth.companyId });
  return Response.json({ object: "list", data: rows.map(toPublicCollection) });
});

export const POST = panelRoute(async ({ req, auth }) => {
  const input = await readJson(req, CreateCollectionInput);
  return Response.json(toPublicCollection(await createCollection(db, { companyId: auth.companyId, input })), {
    status: 201,
  });
});
