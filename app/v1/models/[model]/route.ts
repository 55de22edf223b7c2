import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, decodeParam, routes } from "@/lib/http";
import { resolveVisibleModel, toPublicModel } from "@/lib/models";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<{ model: string }>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(
      toPublicModel(await resolveVisibleModel({ companyId: auth.companyId, slug: decodeParam(params.model) })),
    ),
  ),
});
