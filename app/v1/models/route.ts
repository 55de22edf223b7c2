import { SCOPE } from "@/lib/auth/scopes";
import { apiRoute, routes } from "@/lib/http";
import { listModels, toPublicModel } from "@/lib/models";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute({ scope: SCOPE.chat }, async ({ auth }) => {
    const models = await listModels({ companyId: auth.companyId });
    return Response.json({ object: "list", data: models.map(toPublicModel) });
  }),
});
