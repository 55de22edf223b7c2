import { db } from "@/db/client";
import { CreateGuardrailInput, createGuardrail, listGuardrails, toPublicGuardrail } from "@/lib/guardrails";
import { panelRoute, readJson, readQuery } from "@/lib/http";
import { PageQuery, toListResponse } from "@/lib/pagination";

export const GET = panelRoute(async ({ req, auth }) => {
  const page = await listGuardrails(db, { companyId: auth.companyId, page: readQuery(req, PageQuery) });
  return Response.json(toListResponse(page, toPublicGuardrail));
});

export const POST = panelRoute(async ({ req, auth }) => {
  const input = await readJson(req, CreateGuardrailInput);
  const rule = await createGuardrail(db, { companyId: auth.companyId, input });
  return Response.json(toPublicGuardrail(rule), { status: 201 });
});
