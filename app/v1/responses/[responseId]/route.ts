import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, routes } from "@/lib/http";
import { deleteResponse, getResponse } from "@/lib/protocols/responses";

type P = { responseId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(await getResponse(db, { companyId: auth.companyId, responseId: params.responseId })),
  ),
  DELETE: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(await deleteResponse(db, { companyId: auth.companyId, responseId: params.responseId })),
  ),
});
