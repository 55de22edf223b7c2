import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import { CreateGuardrailInput, createGuardrail, listGuardrails, toPublicGuardrail } from "@/lib/guardrails";
import { apiRoute, readJson, readQuery, routes } from "@/lib/http";
import { PageQuery, toListResponse } from "@/lib/pagination";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const page = await listGuardrails(db, { companyId: auth.companyId, page: readQuery(req, PageQuery) });
    return Response.json(toListResponse(page, toPublicGuardrail));
  }),
  POST: apiRoute({ scope: SCOPE.chat }, async ({ req, auth }) => {
    const input = await readJson(req, CreateGuardrailInput);
    const rule = await createGuardrail(db, { companyId: auth.companyId, input });
    return Response.json(toPublicGuardrail(rule), { status: 201 });
  }),
});
