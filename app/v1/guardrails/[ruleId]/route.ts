import { db } from "@/db/client";
import { SCOPE } from "@/lib/auth/scopes";
import {
  deleteGuardrail,
  getGuardrailInCompany,
  toPublicGuardrail,
  UpdateGuardrailInput,
  updateGuardrail,
} from "@/lib/guardrails";
import { apiRoute, readJson, routes } from "@/lib/http";

type P = { ruleId: string };

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) =>
    Response.json(
      toPublicGuardrail(await getGuardrailInCompany(db, { companyId: auth.companyId, ruleId: params.ruleId })),
    ),
  ),
  PATCH: apiRoute<P>({ scope: SCOPE.chat }, async ({ req, auth, params }) => {
    const input = await readJson(req, UpdateGuardrailInput);
    const rule = await updateGuardrail(db, { companyId: auth.companyId, ruleId: params.ruleId, input });
    return Response.json(toPublicGuardrail(rule));
  }),
  DELETE: apiRoute<P>({ scope: SCOPE.chat }, async ({ auth, params }) => {
    const rule = await deleteGuardrail(db, { companyId: auth.companyId, ruleId: params.ruleId });
    return Response.json({ id: rule.id, object: "guardrail", deleted: true });
  }),
});
