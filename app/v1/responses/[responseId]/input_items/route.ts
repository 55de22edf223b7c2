import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, readQuery, routes } from "@/lib/http";
import { ItemListQuery, listInputItems } from "@/lib/protocols/responses";

type P = { responseId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) =>
    Response.json(
      await listInputItems(db, {
        companyId: auth.companyId,
        responseId: params.responseId,
        query: readQuery(req, ItemListQuery),
      }),
    ),
  ),
});
