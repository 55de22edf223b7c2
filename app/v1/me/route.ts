import { SCOPE } from "@/lib/auth/scopes";
import { getCompanyIdentity } from "@/lib/companies";
import { apiRoute, routes } from "@/lib/http";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute({ scope: SCOPE.chat }, async ({ auth }) => {
    const company = await getCompanyIdentity(auth.companyId);
    return Response.json({ company_id: company.id, company_name: company.name });
  }),
});
