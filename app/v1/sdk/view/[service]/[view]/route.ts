import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, queryParams, readQuery, routes } from "@/lib/http";
import { fetchView, getView, SduiQuery } from "@/lib/sdk";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<{ service: string; view: string }>({ scope: SCOPE.view }, async ({ req, auth, params }) => {
    getView(params.service, params.view); // 404 before any 400 about the query
    readQuery(req, SduiQuery);
    return Response.json(
      await fetchView(db, {
        companyId: auth.companyId,
        service: params.service,
        view: params.view,
        query: queryParams(req),
      }),
    );
  }),
});
